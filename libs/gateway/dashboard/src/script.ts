/** The few DOM members the script uses: the project compiles without the DOM library. */
interface ScriptElement {
  hidden: boolean;
  textContent: string | null;
  value: string;
  getAttribute(name: string): string | null;
  addEventListener(type: 'click', listener: () => void): void;
  select(): void;
}
interface ScriptDocument {
  querySelectorAll(selector: string): Iterable<ScriptElement>;
  getElementById(id: string): ScriptElement | null;
}
interface ScriptClipboard {
  writeText(text: string): Promise<void>;
}

/**
 * The dashboard's progressive enhancement: a Copy button beside each key shown once. Without
 * JavaScript the buttons stay hidden and the read-only field can be selected and copied by hand.
 */
function enhance(document: ScriptDocument, clipboard: ScriptClipboard | undefined): void {
  for (const button of document.querySelectorAll('button[data-copy]')) {
    const source = document.getElementById(button.getAttribute('data-copy') ?? '');
    if (!source || !clipboard) continue;
    button.hidden = false;
    button.addEventListener('click', () => {
      source.select();
      clipboard.writeText(source.value).then(
        () => (button.textContent = 'Copied'),
        () => (button.textContent = 'Select and copy'),
      );
    });
  }
}

/** Served as /dashboard/assets/dashboard.js: `enhance` as tsc compiled it, run on the page. */
export const SCRIPT = `"use strict";\n(${enhance.toString()})(document, navigator.clipboard);\n`;

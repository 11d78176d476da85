import { html } from './html';

describe('html', () => {
  it('escapes every interpolated value, keeping fragments built with html as they are', () => {
    const name = `<script>alert("x")</script> & 'y'`;
    const item = html`<li>${name}</li>`;
    expect(
      html`<ul>
          ${[item, item]}
        </ul>
        <p title="${name}">${42}${null}${false}</p>`.text,
    ).toBe(
      '<ul>' +
        '<li>&lt;script&gt;alert(&quot;x&quot;)&lt;/script&gt; &amp; &#39;y&#39;</li>'.repeat(2) +
        '</ul><p title="&lt;script&gt;alert(&quot;x&quot;)&lt;/script&gt; &amp; &#39;y&#39;">42</p>',
    );
  });
});

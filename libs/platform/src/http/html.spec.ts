import { html } from './html';

describe('html', () => {
  it('escapes every interpolated value, keeping fragments built with html as they are', () => {
    const name = `<script>alert("x")</script> & 'y'`;
    // prettier-ignore
    const item = html`<li>${name}</li>`;
    // prettier-ignore
    const page = html`<ul>${[item, item]}</ul><p title="${name}">${42}${null}${false}</p>`;
    const escaped = '&lt;script&gt;alert(&quot;x&quot;)&lt;/script&gt; &amp; &#39;y&#39;';
    expect(page.text).toBe(`<ul><li>${escaped}</li><li>${escaped}</li></ul><p title="${escaped}">42</p>`);
  });
});

import { describe, expect, it } from 'vitest';
import { activeMarkdown, activeMarkup } from '../../../src/export/inert-markup.js';

/** What pandas writes for `df.head()` (2.2, trimmed). */
const PANDAS = `<div>
<style scoped>
    .dataframe tbody tr th:only-of-type {
        vertical-align: middle;
    }
    .dataframe thead th {
        text-align: right;
    }
</style>
<table border="1" class="dataframe">
  <thead>
    <tr style="text-align: right;">
      <th></th>
      <th>a &amp; b</th>
    </tr>
  </thead>
  <tbody>
    <tr>
      <th>0</th>
      <td>onerror=1 &lt;script&gt;</td>
    </tr>
  </tbody>
</table>
</div>`;

/** What matplotlib writes for `savefig(format="svg")` (3.10, trimmed). */
const MATPLOTLIB = `<?xml version="1.0" encoding="utf-8" standalone="no"?>
<!DOCTYPE svg PUBLIC "-//W3C//DTD SVG 1.1//EN"
  "http://www.w3.org/Graphics/SVG/1.1/DTD/svg11.dtd">
<svg xmlns:xlink="http://www.w3.org/1999/xlink" width="460.8pt" height="345.6pt" viewBox="0 0 460.8 345.6" xmlns="http://www.w3.org/2000/svg" version="1.1">
 <metadata>
  <rdf:RDF xmlns:dc="http://purl.org/dc/elements/1.1/" xmlns:cc="http://creativecommons.org/ns#" xmlns:rdf="http://www.w3.org/1999/02/22-rdf-syntax-ns#">
   <cc:Work>
    <dc:type rdf:resource="http://purl.org/dc/dcmitype/StillImage"/>
    <dc:date>2026-11-27T20:00:00.000000</dc:date>
    <dc:format>image/svg+xml</dc:format>
    <dc:creator><cc:Agent><dc:title>Matplotlib v3.10.1, https://matplotlib.org/</dc:title></cc:Agent></dc:creator>
   </cc:Work>
  </rdf:RDF>
 </metadata>
 <defs>
  <style type="text/css">*{stroke-linejoin: round; stroke-linecap: butt}</style>
 </defs>
 <g id="figure_1">
  <g id="patch_1">
   <path d="M 0 345.6 L 460.8 345.6 L 460.8 0 L 0 0 z" style="fill: #ffffff"/>
  </g>
  <g id="line2d_1">
   <path d="M 57.6 307.584" clip-path="url(#p1a2b3c4d5e)" style="fill: none; stroke: #1f77b4; stroke-width: 1.5"/>
   <use xlink:href="#m0e3b1a2c3d" x="57.6" y="307.584" style="stroke: #000000; stroke-width: 0.8"/>
   <image xlink:href="data:image/png;base64,iVBORw0KGgo=" width="10" height="10"/>
  </g>
 </g>
 <defs>
  <clipPath id="p1a2b3c4d5e">
   <rect x="57.6" y="41.472" width="357.12" height="266.112"/>
  </clipPath>
 </defs>
</svg>`;

describe('activeMarkup (HTML and SVG from the sandbox)', () => {
  it("keeps pandas' tables and matplotlib's SVG, entities and text that only mention handlers included", () => {
    expect(activeMarkup(PANDAS)).toBeUndefined();
    expect(activeMarkup(MATPLOTLIB)).toBeUndefined();
    expect(activeMarkup('<b>bold</b> <a href="https://example.org/x?a=1&amp;b=2">link</a>')).toBeUndefined();
  });

  it.each([
    ['<script>alert(1)</script>', 'a <script> element'],
    ['<SCRIPT SRC=//x></SCRIPT>', 'a <script> element'],
    ['<b>x</b><img src="data:image/png;base64,AA" onerror="alert(1)">', 'an event handler (onerror)'],
    ['<img src=x/onerror=alert(1)>', 'a URL that loads a resource'],
    ['<img/src="data:image/png;base64,AA"/onerror=alert(1)>', 'an event handler (onerror)'],
    ['<svg xmlns="http://www.w3.org/2000/svg" onload="alert(1)"><rect/></svg>', 'an event handler (onload)'],
    ['<svg><animate attributeName="href" to="javascript:alert(1)"/></svg>', 'a <animate> element'],
    ['<svg><foreignObject><div>x</div></foreignObject></svg>', 'a <foreignobject> element'],
    ['<a href="javascript:alert(1)">x</a>', 'a javascript: URL'],
    ['<a href="jav&#x09;ascript:alert(1)">x</a>', 'a javascript: URL'],
    ['<a href="&#106avascript:alert(1)">x</a>', 'an attribute it could not read'],
    ['<a href="java&Tab;script:alert(1)">x</a>', 'an attribute it could not read'],
    ['<svg><a xlink:href="javascript:alert(1)"><text>x</text></a></svg>', 'a javascript: URL'],
    ['<iframe srcdoc="<script>alert(1)</script>"></iframe>', 'a <iframe> element'],
    ['<object data="x.swf"></object>', 'a <object> element'],
    ['<embed src="x">', 'a <embed> element'],
    ['<img src="https://tracker.example/p.gif">', 'a URL that loads a resource'],
    ['<div style="background:url(https://x/y)">', 'CSS that loads a resource'],
    ['<div style="width: expression(alert(1))">', 'CSS that can run code or load a resource'],
    ['<style>@import "https://x/y.css";</style>', 'CSS that can run code or load a resource'],
    ['<b title="<img src=#a onerror=alert(1)>">x</b>', 'an event handler (onerror)'],
    ['<!-- <b title=" --> <img src=#a onerror=alert(1)> -->">', 'an event handler (onerror)'],
    ['<![CDATA[ ><img src=#a onerror=alert(1)> ]]>', 'an event handler (onerror)'],
    ['<!DOCTYPE svg [<!ENTITY x "&#60;script&#62;">]><svg>&x;</svg>', 'a document type definition'],
    ['<?xml-stylesheet href="x.xsl"?><svg/>', 'a processing instruction'],
    ['<meta http-equiv="refresh" content="0;url=javascript:alert(1)">', 'an element outside the allowlist (<meta>)'],
    ['<b "onclick=alert(1)">x</b>', 'an attribute it could not read'],
    ['<b title=x', 'markup it could not read (an unclosed tag)'],
    ['<b title="x>y', 'markup it could not read (an unclosed attribute)'],
  ])('finds %s active', (markup, why) => {
    expect(activeMarkup(markup)).toBe(why);
  });
});

describe('activeMarkdown', () => {
  it('keeps plain Markdown with ordinary links', () => {
    expect(activeMarkdown('**Data:** 5 rows, see [docs](https://example.org/a_b) and [top](#top)')).toBeUndefined();
  });

  it.each([
    ['[click](javascript:alert(1))', 'a javascript: URL'],
    ['[click](&#106;avascript:alert(1))', 'a javascript: URL'],
    ['[x](data:text/html;base64,PHNjcmlwdD4=)', 'a link it could not check'],
    ['[x]: vbscript:msgbox(1)', 'a javascript: URL'],
    ['text <img src=#a onerror=alert(1)>', 'an event handler (onerror)'],
  ])('finds %s active', (markdown, why) => {
    expect(activeMarkdown(markdown)).toBe(why);
  });
});

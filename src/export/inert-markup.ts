/**
 * Whether HTML, SVG or Markdown that came out of the sandbox is inert: nothing in it runs, and nothing loads but
 * images embedded in it, in a notebook viewer that trusts the notebook. The checks are an allowlist and strict on
 * purpose: an element outside the list, an attribute whose name is not a plain name, an event handler, a URL other
 * than `#…`, an embedded image (`data:image/…;base64`) or a link's http(s), CSS that can run or import, a processing
 * instruction or a DTD, and markup that does not parse make it active. Every `<` that could open a tag is checked
 * on its own, so a tag hidden in a comment, an attribute value or CDATA, wherever a browser or an XML parser would
 * see it, is checked too. Nothing is rewritten: markup that is not plainly inert is left out whole, and the result's
 * other forms (text, PNG) stand in for it. (The sanitiser the project ships, dompurify, needs a DOM, which Node has not.)
 */

const HTML_ELEMENTS = `a abbr article aside b bdi bdo blockquote body br caption center cite code col colgroup dd del
details dfn div dl dt em figcaption figure font footer h1 h2 h3 h4 h5 h6 head header hr html i img ins kbd li main
mark nav ol p pre q rp rt ruby s samp section small span strike strong style sub summary sup table tbody td tfoot th
thead time title tr tt u ul var wbr`;
const SVG_ELEMENTS = `svg g defs desc metadata symbol use path rect circle ellipse line polyline polygon text tspan
textpath clippath mask pattern marker lineargradient radialgradient stop image filter feblend fecolormatrix
fecomponenttransfer fecomposite fedropshadow feflood fefunca fefuncb fefuncg fefuncr fegaussianblur femerge
femergenode femorphology feoffset fetile feturbulence rdf:rdf cc:work cc:agent dc:type dc:date dc:format dc:creator
dc:title`;
const ELEMENTS = new Set(`${HTML_ELEMENTS} ${SVG_ELEMENTS}`.split(/\s+/).filter(Boolean));
/** Elements whose name is said in a note (others are "an element outside the allowlist"). */
const NAMED_ACTIVE = new Set(['script', 'iframe', 'object', 'embed', 'frame', 'frameset', 'applet', 'foreignobject']);
const NAMED_ACTIVE_SVG = new Set(['animate', 'set', 'animatemotion', 'animatetransform', 'handler', 'listener']);

/** Attributes that hold a URL: only `#…` and embedded images, and http(s) on a link. */
const URL_ATTRIBUTES = new Set(
  'href xlink:href src srcset action formaction background poster data codebase cite longdesc usemap dynsrc lowsrc ping manifest classid archive'.split(
    ' ',
  ),
);
const LOCAL_URL = /^(#[\w.:-]*|data:image\/(png|jpe?g|gif|webp);base64,[a-z0-9+/=]*)$/i;
const LINK_URL = /^(https?:\/\/[^\s"'<>`\\]*|mailto:[^\s"'<>`\\]*)$/i;
const ACTIVE_CSS = /expression|javascript|vbscript|-moz-binding|behavior|@import|\\/i;
const ACTIVE_SCHEME = /(javascript|vbscript|livescript):/i;
const ENTITY = /&(#\d{1,7};|#x[0-9a-f]{1,6};|amp;|lt;|gt;|quot;|apos;)/gi;

/** An attribute value as a browser reads it, or undefined when it uses an entity beyond the plain ones. */
function decoded(value: string): string | undefined {
  if (/&[#a-z]/i.test(value.replace(ENTITY, ''))) return undefined;
  return value.replace(ENTITY, (e) => {
    const body = e.slice(1, -1).toLowerCase();
    const named: Record<string, string> = { amp: '&', lt: '<', gt: '>', quot: '"', apos: "'" };
    if (named[body]) return named[body]!;
    const code = body.startsWith('#x') ? parseInt(body.slice(2), 16) : parseInt(body.slice(1), 10);
    return code > 0 && code <= 0x10ffff ? String.fromCodePoint(code) : '\ufffd';
  });
}

/** A value without whitespace or control characters, which browsers skip inside a URL's scheme. */
function withoutGaps(value: string): string {
  return [...value].filter((c) => c.charCodeAt(0) > 0x20 && !/\s/.test(c)).join('');
}

/** Why CSS is active, or undefined: no scripting, no imports, no `url()` but `#…` and embedded images. */
function activeCss(css: string): string | undefined {
  if (ACTIVE_CSS.test(css)) return 'CSS that can run code or load a resource';
  for (const m of css.matchAll(/url\(\s*(['"]?)([^'")]*)\1\s*\)/gi))
    if (!LOCAL_URL.test(m[2]!.replace(/\s+/g, ''))) return 'CSS that loads a resource';
  if (/url\(/i.test(css.replace(/url\(\s*(['"]?)[^'")]*\1\s*\)/gi, ''))) return 'CSS it could not read';
  return undefined;
}

function activeAttribute(element: string, name: string, raw: string): string | undefined {
  if (!/^[a-z_:][-a-z0-9_:.]*$/i.test(name)) return 'an attribute it could not read';
  const lower = name.toLowerCase();
  if (lower.startsWith('on')) return /^on[a-z]{1,24}$/.test(lower) ? `an event handler (${lower})` : 'an event handler';
  if (lower === 'srcdoc' || lower === 'is') return 'an attribute that embeds a document';
  const value = decoded(raw);
  if (value === undefined) return 'an attribute it could not read';
  const compact = withoutGaps(value);
  if (ACTIVE_SCHEME.test(compact)) return 'a javascript: URL';
  if (URL_ATTRIBUTES.has(lower) && !LOCAL_URL.test(compact) && !(element === 'a' && LINK_URL.test(compact)))
    return 'a URL that loads a resource';
  if (lower === 'style' || /url\(/i.test(value)) return activeCss(value);
  return undefined;
}

/** Parses the attributes of the tag whose name ends at `i`; returns why it is active, or undefined. */
function activeTag(text: string, element: string, i: number): string | undefined {
  let at = i;
  for (;;) {
    while (at < text.length && /[\s/]/.test(text[at]!)) at += 1;
    if (at >= text.length) return 'markup it could not read (an unclosed tag)';
    if (text[at] === '>') return undefined;
    const name = /^[^\s/>=]+|^=[^\s/>=]*/.exec(text.slice(at, at + 200))?.[0] ?? '';
    at += name.length;
    while (at < text.length && /\s/.test(text[at]!)) at += 1;
    let value = '';
    if (text[at] === '=') {
      at += 1;
      while (at < text.length && /\s/.test(text[at]!)) at += 1;
      const quote = text[at];
      if (quote === '"' || quote === "'") {
        const end = text.indexOf(quote, at + 1);
        if (end === -1) return 'markup it could not read (an unclosed attribute)';
        value = text.slice(at + 1, end);
        at = end + 1;
      } else {
        value = /^[^\s>]*/.exec(text.slice(at))![0];
        at += value.length;
      }
    }
    const why = activeAttribute(element, name, value);
    if (why) return why;
  }
}

/** Why HTML or SVG from the sandbox is active, or undefined when it is inert. */
export function activeMarkup(text: string): string | undefined {
  if (/<!(ENTITY|ATTLIST|ELEMENT|NOTATION)/i.test(text) || /<!DOCTYPE[^>]*\[/i.test(text))
    return 'a document type definition';
  if (/<\?(?!xml\s)/i.test(text) || /<\?xml-/i.test(text)) return 'a processing instruction';
  for (const m of text.matchAll(/<\s*\/?\s*([A-Za-z][^\s/>]*)/g)) {
    const element = m[1]!.toLowerCase();
    if (!ELEMENTS.has(element)) {
      if (NAMED_ACTIVE.has(element) || NAMED_ACTIVE_SVG.has(element)) return `a <${element}> element`;
      return /^[a-z][a-z0-9]{0,15}$/.test(element)
        ? `an element outside the allowlist (<${element}>)`
        : 'an element outside the allowlist';
    }
    const why = activeTag(text, element, m.index + m[0].length);
    if (why) return why;
  }
  for (const m of text.matchAll(/<style\b[^>]*>([\s\S]*?)(<\/style|$)/gi)) {
    const why = activeCss(m[1]!);
    if (why) return why;
  }
  return undefined;
}

/**
 * Why Markdown from the sandbox is active, or undefined: the HTML in it as {@link activeMarkup} sees it (an autolink
 * `<scheme:…>` reads as an element outside the allowlist there), and link and image destinations (inline and
 * reference definitions) held to the URLs allowed on a link.
 */
export function activeMarkdown(text: string): string | undefined {
  const html = activeMarkup(text);
  if (html) return html;
  const compact = withoutGaps(decoded(text) ?? text);
  if (ACTIVE_SCHEME.test(compact)) return 'a javascript: URL';
  const destinations = [
    ...[...text.matchAll(/\]\(\s*<?([^)\s>]*)/g)].map((m) => m[1]!),
    ...[...text.matchAll(/^\s{0,3}\[[^\]]+\]:\s*<?(\S*?)>?(\s|$)/gm)].map((m) => m[1]!),
  ];
  for (const url of destinations) {
    const value = decoded(url);
    if (value === undefined || !(LOCAL_URL.test(value) || LINK_URL.test(value) || !value.includes(':')))
      return 'a link it could not check';
  }
  return undefined;
}

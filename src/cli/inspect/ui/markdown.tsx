// A small Markdown subset rendered as Preact elements (never as HTML, so a result cannot inject
// markup): headings, paragraphs, lists, code blocks, `code`, **bold**, *emphasis* and http(s) links.
import type { ComponentChildren } from 'preact';

export function Markdown(props: { text: string }) {
  const blocks: ComponentChildren[] = [];
  const lines = props.text.split('\n');
  let i = 0;
  while (i < lines.length) {
    const line = lines[i]!;
    if (line.startsWith('```')) {
      const body: string[] = [];
      i++;
      while (i < lines.length && !lines[i]!.startsWith('```')) body.push(lines[i++]!);
      i++;
      blocks.push(<pre key={blocks.length}><code>{body.join('\n')}</code></pre>);
      continue;
    }
    const heading = /^(#{1,6})\s+(.*)$/.exec(line);
    if (heading !== null) {
      const level = Math.min(heading[1]!.length + 2, 6);
      const H = `h${level}` as 'h3';
      blocks.push(<H key={blocks.length}>{inline(heading[2]!)}</H>);
      i++;
      continue;
    }
    if (/^\s*([-*+]|\d+\.)\s+/.test(line)) {
      const items: string[] = [];
      const ordered = /^\s*\d+\./.test(line);
      while (i < lines.length && /^\s*([-*+]|\d+\.)\s+/.test(lines[i]!)) items.push(lines[i++]!.replace(/^\s*([-*+]|\d+\.)\s+/, ''));
      const List = ordered ? 'ol' : 'ul';
      blocks.push(<List key={blocks.length}>{items.map((t, j) => <li key={j}>{inline(t)}</li>)}</List>);
      continue;
    }
    if (line.trim() === '') {
      i++;
      continue;
    }
    const para: string[] = [];
    while (i < lines.length && lines[i]!.trim() !== '' && !lines[i]!.startsWith('```') && !/^#{1,6}\s/.test(lines[i]!) && !/^\s*([-*+]|\d+\.)\s+/.test(lines[i]!)) para.push(lines[i++]!);
    blocks.push(<p key={blocks.length}>{inline(para.join(' '))}</p>);
  }
  return <div class="markdown">{blocks}</div>;
}

const INLINE = /(`[^`]+`)|(\*\*[^*]+\*\*)|(\*[^*\s][^*]*\*)|(\[[^\]]+\]\([^)\s]+\))/g;

function inline(text: string): ComponentChildren[] {
  const out: ComponentChildren[] = [];
  let last = 0;
  for (const m of text.matchAll(INLINE)) {
    if (m.index > last) out.push(text.slice(last, m.index));
    const s = m[0];
    if (m[1] !== undefined) out.push(<code>{s.slice(1, -1)}</code>);
    else if (m[2] !== undefined) out.push(<strong>{s.slice(2, -2)}</strong>);
    else if (m[3] !== undefined) out.push(<em>{s.slice(1, -1)}</em>);
    else {
      const link = /^\[([^\]]+)\]\(([^)\s]+)\)$/.exec(s)!;
      const href = link[2]!;
      out.push(/^https?:\/\//.test(href) ? <a href={href} target="_blank" rel="noopener noreferrer">{link[1]}</a> : `${link[1]} (${href})`);
    }
    last = m.index + s.length;
  }
  if (last < text.length) out.push(text.slice(last));
  return out;
}

// The wire: every frame both ways, in a virtualised list (only the rows in view are in the DOM),
// filterable by extension, type, direction and text; request / response pairs linked with their
// latency; the shown frames exportable as NDJSON.
import { useEffect, useMemo, useRef, useState } from 'preact/hooks';
import type { Frame, Store } from './store.js';

const ROW = 22;
const OVERSCAN = 10;

export function Wire(props: { store: Store }) {
  const { store } = props;
  const [extension, setExtension] = useState('');
  const [type, setType] = useState('');
  const [direction, setDirection] = useState('');
  const [text, setText] = useState('');
  const [selected, setSelected] = useState<number | undefined>(undefined);
  const [follow, setFollow] = useState(true);
  const [scrollTop, setScrollTop] = useState(0);
  const [height, setHeight] = useState(400);
  const box = useRef<HTMLDivElement>(null);

  const frames = store.frames;
  const shown = useMemo(() => {
    if (extension === '' && type === '' && direction === '' && text === '') return frames;
    return frames.filter((f) => (extension === '' || f.extension === extension) && (type === '' || f.type === type) && (direction === '' || f.direction === direction) && (text === '' || f.line.includes(text)));
    // store.tick: the frames array is appended to in place.
  }, [frames, store.tick, extension, type, direction, text]);

  const names = useMemo(() => [...new Set(store.extensions.map((e) => e.name).concat(frames.slice(-500).map((f) => f.extension)))].sort(), [store.tick]);
  const types = useMemo(() => [...new Set(frames.map((f) => f.type))].sort(), [store.tick]);

  useEffect(() => {
    const el = box.current;
    if (el === null) return;
    const ro = new ResizeObserver(() => setHeight(el.clientHeight));
    ro.observe(el);
    setHeight(el.clientHeight);
    return () => ro.disconnect();
  }, []);
  useEffect(() => {
    const el = box.current;
    if (el !== null && follow) el.scrollTop = el.scrollHeight;
  }, [shown.length, store.tick, follow]);

  const first = Math.max(0, Math.floor(scrollTop / ROW) - OVERSCAN);
  const last = Math.min(shown.length, Math.ceil((scrollTop + height) / ROW) + OVERSCAN);
  const rows = shown.slice(first, last);
  const chosen = selected === undefined ? undefined : store.find(selected);
  const t0 = frames[0]?.at ?? 0;

  const exportNdjson = () => {
    const lines = shown.map((f) => JSON.stringify({ seq: f.seq, at: new Date(f.at).toISOString(), extension: f.extension, direction: f.direction, type: f.type, ...(f.latency === undefined ? {} : { latencyMs: f.latency }), frame: parse(f.line) }));
    const blob = new Blob([lines.join('\n') + (lines.length > 0 ? '\n' : '')], { type: 'application/x-ndjson' });
    const a = document.createElement('a');
    a.href = URL.createObjectURL(blob);
    a.download = `zot-ext-wire-${new Date().toISOString().replace(/[:.]/g, '-')}.ndjson`;
    a.click();
    setTimeout(() => URL.revokeObjectURL(a.href), 1000);
  };

  return (
    <section class="wire">
      <div class="toolbar">
        <select aria-label="extension" name="wire-extension" value={extension} onChange={(e) => setExtension((e.target as HTMLSelectElement).value)}>
          <option value="">all extensions</option>
          {names.map((n) => <option key={n} value={n}>{n}</option>)}
        </select>
        <select aria-label="type" name="wire-type" value={type} onChange={(e) => setType((e.target as HTMLSelectElement).value)}>
          <option value="">all types</option>
          {types.map((n) => <option key={n} value={n}>{n}</option>)}
        </select>
        <select aria-label="direction" name="wire-direction" value={direction} onChange={(e) => setDirection((e.target as HTMLSelectElement).value)}>
          <option value="">both ways</option>
          <option value="out">→ to extensions</option>
          <option value="in">← from extensions</option>
        </select>
        <input type="search" name="wire-text" placeholder="contains…" value={text} onInput={(e) => setText((e.target as HTMLInputElement).value)} />
        <label class="check">
          <input type="checkbox" checked={follow} onChange={(e) => setFollow((e.target as HTMLInputElement).checked)} /> follow
        </label>
        <span class="muted counts" data-testid="wire-counts">
          {shown.length} shown · {frames.length} kept{store.dropped > 0 ? <span class="dropped"> · {store.dropped} dropped</span> : null}
        </span>
        <button type="button" onClick={exportNdjson}>Export NDJSON</button>
        <button type="button" onClick={() => store.clearFrames()}>Clear</button>
      </div>
      <div class="wire-body">
        <div
          class="wire-list"
          ref={box}
          onScroll={(e) => {
            const el = e.currentTarget as HTMLDivElement;
            setScrollTop(el.scrollTop);
            const atBottom = el.scrollTop + el.clientHeight >= el.scrollHeight - ROW;
            if (atBottom !== follow) setFollow(atBottom);
          }}
        >
          <div style={{ height: `${shown.length * ROW}px`, position: 'relative' }}>
            {rows.map((f, i) => (
              <FrameRowView key={f.seq} frame={f} top={(first + i) * ROW} t0={t0} selected={f.seq === selected || (chosen?.pair !== undefined && f.seq === chosen.pair)} onSelect={() => setSelected(f.seq)} />
            ))}
          </div>
        </div>
        <FrameDetail store={store} frame={chosen} onSelect={setSelected} />
      </div>
    </section>
  );
}

function FrameRowView(props: { frame: Frame; top: number; t0: number; selected: boolean; onSelect: () => void }) {
  const f = props.frame;
  return (
    <div class={`frame-row ${f.direction}${props.selected ? ' selected' : ''}`} style={{ top: `${props.top}px`, height: `${ROW}px` }} onClick={props.onSelect} data-type={f.type} data-extension={f.extension}>
      <span class="time">{time(f.at)}</span>
      <span class="dir" title={f.direction === 'out' ? 'to the extension' : 'from the extension'}>{f.direction === 'out' ? '→' : '←'}</span>
      <span class="ext">{f.extension}</span>
      <span class="type">{f.type}</span>
      <span class="latency">{f.latency !== undefined ? `${f.latency} ms` : f.pair !== undefined ? '↔' : ''}</span>
      <span class="line">{f.line}</span>
    </div>
  );
}

function FrameDetail(props: { store: Store; frame: Frame | undefined; onSelect: (seq: number) => void }) {
  const f = props.frame;
  if (f === undefined) return <aside class="frame-detail muted">Select a frame to see it whole; a request and its response are linked.</aside>;
  const pair = f.pair === undefined ? undefined : props.store.find(f.pair);
  return (
    <aside class="frame-detail">
      <div class="detail-head">
        <strong>{f.type}</strong> {f.direction === 'out' ? 'to' : 'from'} <strong>{f.extension}</strong> at {new Date(f.at).toISOString()} · {f.bytes} characters
      </div>
      {pair !== undefined ? (
        <button type="button" class="link" onClick={() => props.onSelect(pair.seq)}>
          {pair.seq < f.seq ? `↑ its request (${pair.type}), ${f.latency ?? 0} ms before` : `↓ its answer (${pair.type}), ${pair.latency ?? 0} ms later`}
        </button>
      ) : null}
      <pre>{pretty(f.line)}</pre>
    </aside>
  );
}

function parse(line: string): unknown {
  try {
    return JSON.parse(line);
  } catch {
    return line;
  }
}

function pretty(line: string): string {
  const v = parse(line);
  return typeof v === 'string' ? v : JSON.stringify(v, null, 2);
}

export function time(at: number): string {
  const d = new Date(at);
  return `${String(d.getHours()).padStart(2, '0')}:${String(d.getMinutes()).padStart(2, '0')}:${String(d.getSeconds()).padStart(2, '0')}.${String(d.getMilliseconds()).padStart(3, '0')}`;
}

// The page's state: what the server pushed, kept bounded, and the requests the page makes.
import type { ActivityJson, CommandJson, ExtensionJson, FrameRow, PanelJson, ProblemJson, Push, Request, ToolJson, ToolResultJson, WireError } from '../messages.js';

/** A frame as the wire view shows it. */
export interface Frame {
  seq: number;
  at: number;
  extension: string;
  direction: 'in' | 'out';
  line: string;
  bytes: number;
  /** `type`, and for events `type:event`. */
  type: string;
  id: string | undefined;
  /** The sequence number of the request this frame answers (or of its answer). */
  pair?: number | undefined;
  /** Milliseconds from the request to this answer. */
  latency?: number | undefined;
}

export interface Call {
  callId: string;
  tool: string;
  args: Record<string, unknown>;
  started: number;
  progress?: { message?: string | undefined; progress?: number | undefined; total?: number | undefined } | undefined;
  result?: ToolResultJson | undefined;
  error?: WireError | undefined;
  cancelling?: boolean | undefined;
}

const ACTIVITY_LIMIT = 300;
type Listener = () => void;
type Pending = { resolve: (value: unknown) => void; reject: (error: WireError) => void };

export class Store {
  connected = false;
  closedReason = '';
  version = '';
  extensions: ExtensionJson[] = [];
  tools: ToolJson[] = [];
  commands: CommandJson[] = [];
  /** Open panels, the focused (most recent) last. */
  panels: PanelJson[] = [];
  activity: ActivityJson[] = [];
  problems: ProblemJson[] = [];
  frames: Frame[] = [];
  frameLimit = 5000;
  /** Frames not shown: dropped by the server for a slow page, or beyond the page's history. */
  dropped = 0;
  calls: Call[] = [];
  /** Bumped at each change: components compare it. */
  tick = 0;

  private ws: WebSocket | undefined;
  private nextId = 1;
  private readonly pending = new Map<number, Pending>();
  private readonly listeners = new Set<Listener>();
  private readonly open = new Map<string, number>();
  private callSeq = 0;

  connect(): void {
    // The token stays in the page (its URL, or the meta tag the server put in): never a cookie.
    const token = new URLSearchParams(location.search).get('token') ?? document.querySelector('meta[name="zot-inspect-token"]')?.getAttribute('content') ?? '';
    const ws = new WebSocket(`${location.protocol === 'https:' ? 'wss' : 'ws'}://${location.host}/ws${token === '' ? '' : `?token=${encodeURIComponent(token)}`}`);
    this.ws = ws;
    ws.onopen = () => {
      this.connected = true;
      this.changed();
    };
    ws.onclose = (e) => {
      this.connected = false;
      this.closedReason = e.reason || `connection closed (${e.code}); is zot-ext inspect still running?`;
      for (const p of this.pending.values()) p.reject({ code: 'DISCONNECTED', message: this.closedReason });
      this.pending.clear();
      this.changed();
    };
    ws.onmessage = (e) => {
      const batch = JSON.parse(String(e.data)) as Push[];
      for (const push of batch) this.apply(push);
      this.changed();
    };
  }

  subscribe(listener: Listener): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  private changed(): void {
    this.tick++;
    for (const l of this.listeners) l();
  }

  request<T = unknown>(body: Request extends infer R ? (R extends { id: number } ? Omit<R, 'id'> : never) : never): Promise<T> {
    const id = this.nextId++;
    return new Promise<T>((resolve, reject) => {
      if (this.ws === undefined || this.ws.readyState !== WebSocket.OPEN) return reject({ code: 'DISCONNECTED', message: 'not connected' });
      this.pending.set(id, { resolve: resolve as (v: unknown) => void, reject });
      this.ws.send(JSON.stringify({ ...body, id }));
    });
  }

  private apply(push: Push): void {
    switch (push.t) {
      case 'hello':
        this.version = push.version;
        this.extensions = push.extensions;
        this.tools = push.tools;
        this.commands = push.commands;
        this.panels = push.panels;
        this.activity = push.activity;
        this.problems = push.problems;
        this.frameLimit = push.frameLimit;
        return;
      case 'extensions':
        this.extensions = push.extensions;
        return;
      case 'tools':
        this.tools = push.tools;
        return;
      case 'commands':
        this.commands = push.commands;
        return;
      case 'frames':
        this.dropped += push.dropped;
        return this.addFrames(push.frames);
      case 'activity':
        this.activity = bounded([...this.activity, push.item], ACTIVITY_LIMIT);
        return;
      case 'problem':
        this.problems = bounded([...this.problems, push.item], ACTIVITY_LIMIT);
        return;
      case 'panel': {
        const same = (p: PanelJson) => p.extension === push.panel.extension && p.panelId === push.panel.panelId;
        if (push.event === 'close') this.panels = this.panels.filter((p) => !same(p));
        else if (push.event === 'open') this.panels = [...this.panels.filter((p) => !same(p)), push.panel];
        else this.panels = this.panels.map((p) => (same(p) ? push.panel : p));
        return;
      }
      case 'progress':
        this.calls = this.calls.map((c) => (c.callId === push.callId ? { ...c, progress: { message: push.message, progress: push.progress, total: push.total } } : c));
        return;
      case 'reply': {
        const p = this.pending.get(push.id);
        this.pending.delete(push.id);
        if (push.ok) p?.resolve(push.result);
        else p?.reject(push.error);
        return;
      }
    }
  }

  private addFrames(rows: FrameRow[]): void {
    const frames = this.frames;
    for (const [seq, at, extension, direction, line, bytes] of rows) {
      let type = '?';
      let id: string | undefined;
      try {
        const parsed = JSON.parse(line) as { type?: unknown; event?: unknown; id?: unknown };
        type = typeof parsed.type === 'string' ? parsed.type : '(no type)';
        if (typeof parsed.event === 'string') type += `:${parsed.event}`;
        if (typeof parsed.id === 'string') id = parsed.id;
      } catch {
        type = '(not JSON)';
      }
      const frame: Frame = { seq, at, extension, direction, line, bytes, type, id };
      if (id !== undefined) {
        const key = `${extension}\u0000${id}`;
        const request = this.open.get(key);
        if (request === undefined) this.open.set(key, seq);
        else {
          const first = this.find(request);
          if (first !== undefined && first.direction !== direction) {
            frame.pair = request;
            frame.latency = at - first.at;
            first.pair = seq;
            if (!type.startsWith('progress')) this.open.delete(key);
          }
        }
        if (this.open.size > 20000) this.open.clear();
      }
      frames.push(frame);
    }
    if (frames.length > this.frameLimit) {
      const over = frames.length - this.frameLimit;
      frames.splice(0, over);
      this.dropped += over;
    }
  }

  /** The frame with sequence number `seq`, if still kept (binary search: sequence numbers grow). */
  find(seq: number): Frame | undefined {
    const frames = this.frames;
    let lo = 0;
    let hi = frames.length - 1;
    while (lo <= hi) {
      const mid = (lo + hi) >> 1;
      const f = frames[mid]!;
      if (f.seq === seq) return f;
      if (f.seq < seq) lo = mid + 1;
      else hi = mid - 1;
    }
    return undefined;
  }

  /** A problem of the page itself (a refused request): shown with the host's diagnostics. */
  addProblem(code: string, message: string): void {
    this.problems = bounded([...this.problems, { at: Date.now(), kind: 'warning', severity: 'error', code, message }], ACTIVITY_LIMIT);
    this.changed();
  }

  clearFrames(): void {
    this.frames = [];
    this.dropped = 0;
    this.changed();
  }

  /** Starts a tool call; its progress and result update `calls`. */
  callTool(tool: string, args: Record<string, unknown>): void {
    const callId = `c${++this.callSeq}`;
    this.calls = [{ callId, tool, args, started: Date.now() }, ...this.calls].slice(0, 50);
    this.changed();
    const update = (patch: Partial<Call>) => {
      this.calls = this.calls.map((c) => (c.callId === callId ? { ...c, ...patch } : c));
      this.changed();
    };
    this.request<ToolResultJson>({ op: 'callTool', name: tool, args, callId }).then(
      (result) => update({ result }),
      (error: WireError) => update({ error }),
    );
  }

  cancel(callId: string): void {
    this.calls = this.calls.map((c) => (c.callId === callId ? { ...c, cancelling: true } : c));
    this.changed();
    void this.request({ op: 'cancel', callId }).catch(() => undefined);
  }
}

function bounded<T>(list: T[], limit: number): T[] {
  return list.length > limit ? list.slice(list.length - limit) : list;
}

// The inspector's page (Preact). Served by `zot-ext inspect` from dist/inspector/.
import { render } from 'preact';
import { useEffect, useRef, useState } from 'preact/hooks';
import type { CommandJson, ExtensionJson, InterceptEvent, InterceptResultJson, PanelJson, ToolJson, ToolResultJson, WireError } from '../messages.js';
import { Markdown } from './markdown.js';
import { initialValue, problems, type Schema } from './schema.js';
import { SchemaForm } from './schema-form.js';
import { Store, type Call } from './store.js';
import { Wire, time } from './wire.js';
import './style.css';

const store = new Store();

function useStore(): number {
  const [, setTick] = useState(0);
  useEffect(() => store.subscribe(() => setTick(store.tick)), []);
  return store.tick;
}

type Tab = 'tools' | 'commands' | 'wire' | 'intercept';

function App() {
  useStore();
  const [tab, setTab] = useState<Tab>('tools');
  return (
    <div class="app">
      <header>
        <h1>zot-ext inspect</h1>
        <span class={`status ${store.connected ? 'ok' : 'bad'}`} data-testid="connection">
          {store.connected ? 'connected' : store.closedReason === '' ? 'connecting…' : store.closedReason}
        </span>
        <nav>
          {(['tools', 'commands', 'wire', 'intercept'] as const).map((t) => (
            <button type="button" key={t} class={tab === t ? 'tab active' : 'tab'} onClick={() => setTab(t)}>
              {t === 'tools' ? `Tools (${store.tools.length})` : t === 'commands' ? `Commands (${store.commands.length})` : t === 'wire' ? `Wire (${store.frames.length})` : 'Intercept'}
            </button>
          ))}
        </nav>
        <span class="muted">v{store.version}</span>
      </header>
      <main>
        <Extensions />
        <div class="center">
          {tab === 'tools' ? <Tools /> : tab === 'commands' ? <Commands /> : tab === 'wire' ? <Wire store={store} /> : <Intercept />}
        </div>
        <aside class="side">
          <Panels />
          <Activity />
          <Problems />
        </aside>
      </main>
    </div>
  );
}

// ---------------------------------------------------------------------------------------------
// Extensions
// ---------------------------------------------------------------------------------------------

/** Fields shown in their own places; any other field of ExtensionInfo is listed as it is. */
const KNOWN = new Set(['name', 'version', 'state', 'pid', 'source', 'dir', 'logPath', 'commands', 'tools', 'subscriptions', 'error', 'order', 'permissions', 'capabilities', 'readyVia', 'readyMs', 'restarts', 'latePanelFrames']);

function Extensions() {
  const [reloading, setReloading] = useState(false);
  return (
    <aside class="extensions">
      <div class="section-head">
        <h2>Extensions</h2>
        <button
          type="button"
          disabled={reloading}
          onClick={() => {
            setReloading(true);
            store.request({ op: 'reload' }).catch(alertError).finally(() => setReloading(false));
          }}
        >
          {reloading ? 'Reloading…' : 'Reload all'}
        </button>
      </div>
      {store.extensions.length === 0 ? <p class="muted">No extensions loaded.</p> : null}
      {store.extensions.map((e) => <ExtensionCard key={e.name} ext={e} />)}
    </aside>
  );
}

function ExtensionCard(props: { ext: ExtensionJson }) {
  const e = props.ext;
  const [log, setLog] = useState<string | undefined>(undefined);
  const [busy, setBusy] = useState(false);
  const permissions = e.permissions as { granted?: string[]; requested?: string[] } | undefined;
  const extra = Object.entries(e).filter(([k, v]) => !KNOWN.has(k) && v !== undefined);
  const fetchLog = () => store.request<{ text: string }>({ op: 'log', name: e.name }).then((r) => setLog(r.text), alertError);
  useEffect(() => {
    if (log !== undefined) void fetchLog();
  }, [e.state, e.restarts]);
  return (
    <div class={`card ext state-${e.state}`} data-extension={e.name}>
      <div class="ext-head">
        <strong>{e.name}</strong> <span class="muted">{String(e.version ?? '')}</span>
        <span class={`badge state-${e.state}`} data-testid="state">{e.state}</span>
      </div>
      <dl>
        <dt>pid</dt>
        <dd data-testid="pid">{e.pid ?? '—'}</dd>
        <dt>source</dt>
        <dd>{String(e.source)}</dd>
        {typeof e.readyMs === 'number' ? (
          <>
            <dt>ready in</dt>
            <dd>{e.readyMs} ms</dd>
          </>
        ) : null}
        <dt>restarts</dt>
        <dd>{String(e.restarts ?? 0)}</dd>
        <dt>permissions</dt>
        <dd>{permissions?.granted?.length ? permissions.granted.join(', ') : 'none'}{permissions?.requested !== undefined && permissions.requested !== null ? <span class="muted"> (requested: {permissions.requested.join(', ') || 'none'})</span> : null}</dd>
        <dt>capabilities</dt>
        <dd>{(e.capabilities as string[] | undefined)?.join(', ') || 'none'}</dd>
        {extra.map(([k, v]) => (
          <>
            <dt>{k}</dt>
            <dd class="extra">{fieldText(k, v)}</dd>
          </>
        ))}
      </dl>
      {e.error !== undefined ? <div class="error-text">{e.error.code}: {e.error.message}</div> : null}
      <div class="buttons">
        <button
          type="button"
          name="restart"
          disabled={busy}
          onClick={() => {
            setBusy(true);
            store.request({ op: 'restart', name: e.name }).catch(alertError).finally(() => setBusy(false));
          }}
        >
          {busy ? 'Restarting…' : 'Restart'}
        </button>
        <button type="button" onClick={() => (log === undefined ? void fetchLog() : setLog(undefined))}>
          {log === undefined ? 'Log' : 'Hide log'}
        </button>
        {log !== undefined ? <button type="button" onClick={() => void fetchLog()}>↻</button> : null}
      </div>
      {log !== undefined ? <pre class="log">{log.split('\n').slice(-60).join('\n') || '(empty)'}</pre> : null}
      <div class="muted small" title={String(e.logPath)}>{String(e.logPath)}</div>
    </div>
  );
}

// ---------------------------------------------------------------------------------------------
// Tools and calls
// ---------------------------------------------------------------------------------------------

function Tools() {
  const [chosen, setChosen] = useState<string | undefined>(undefined);
  const tool = store.tools.find((t) => t.name === chosen) ?? store.tools[0];
  return (
    <section class="tools">
      <div class="tool-list">
        {store.tools.length === 0 ? <p class="muted">No tools registered.</p> : null}
        {store.tools.map((t) => (
          <button type="button" key={t.name} class={t === tool ? 'tool-item active' : 'tool-item'} data-tool={t.name} onClick={() => setChosen(t.name)}>
            <strong>{t.name}</strong>
            <span class="muted">{t.extension}</span>
            <span class="desc">{t.description}</span>
          </button>
        ))}
      </div>
      <div class="tool-main">
        {tool !== undefined ? <ToolForm key={`${tool.extension}/${tool.name}`} tool={tool} /> : null}
        <Calls />
      </div>
    </section>
  );
}

function ToolForm(props: { tool: ToolJson }) {
  const { tool } = props;
  const schema = tool.schema as Schema;
  const [args, setArgs] = useState<Record<string, unknown>>(() => (initialValue(schema) as Record<string, unknown>) ?? {});
  const [raw, setRaw] = useState<string | undefined>(undefined);
  const [rawError, setRawError] = useState('');
  const found = problems(schema, args);
  return (
    <form
      class="card tool-form"
      onSubmit={(e) => {
        e.preventDefault();
        if (raw !== undefined) {
          try {
            const parsed = JSON.parse(raw) as unknown;
            if (typeof parsed !== 'object' || parsed === null || Array.isArray(parsed)) throw new Error('the arguments must be a JSON object');
            store.callTool(tool.name, parsed as Record<string, unknown>);
          } catch (err) {
            setRawError((err as Error).message);
          }
          return;
        }
        store.callTool(tool.name, args);
      }}
    >
      <div class="section-head">
        <h2>{tool.name}</h2>
        <span class="muted">{tool.extension}{tool.interactive ? ' · interactive' : ''}</span>
      </div>
      <p>{tool.description}</p>
      <div class="mode">
        <button type="button" class={raw === undefined ? 'tab active' : 'tab'} onClick={() => {
          if (raw === undefined) return;
          try {
            setArgs(JSON.parse(raw) as Record<string, unknown>);
            setRaw(undefined);
            setRawError('');
          } catch (err) {
            setRawError((err as Error).message);
          }
        }}>Form</button>
        <button type="button" class={raw !== undefined ? 'tab active' : 'tab'} onClick={() => setRaw(JSON.stringify(args, null, 2))}>Raw JSON</button>
      </div>
      {raw === undefined ? (
        <SchemaForm schema={schema} value={args} onChange={setArgs} prefix="args" />
      ) : (
        <textarea class="raw" name="raw-args" rows={8} value={raw} onInput={(e) => setRaw((e.target as HTMLTextAreaElement).value)} />
      )}
      {rawError !== '' ? <div class="error-text">{rawError}</div> : null}
      {raw === undefined && found.length > 0 ? <ul class="problems">{found.map((p) => <li key={p}>{p}</li>)}</ul> : null}
      <details>
        <summary>JSON Schema</summary>
        <pre>{JSON.stringify(schema, null, 2)}</pre>
      </details>
      <button type="submit" class="primary" name="call" disabled={raw === undefined && found.length > 0}>
        Call {tool.name}
      </button>
    </form>
  );
}

function Calls() {
  if (store.calls.length === 0) return null;
  return (
    <div class="calls">
      <h2>Calls</h2>
      {store.calls.map((c) => <CallView key={c.callId} call={c} />)}
    </div>
  );
}

function CallView(props: { call: Call }) {
  const c = props.call;
  const running = c.result === undefined && c.error === undefined;
  const p = c.progress;
  const failed = c.error !== undefined || c.result?.isError === true || c.result?.failure !== undefined;
  return (
    <div class={`card call ${running ? 'running' : failed ? 'failed' : 'ok'}`} data-call={c.callId} data-tool={c.tool}>
      <div class="call-head">
        <strong>{c.tool}</strong> <code class="args">{JSON.stringify(c.args)}</code>
        <span class="badge" data-testid="call-status">
          {running ? (c.cancelling ? 'cancelling…' : 'running') : c.error !== undefined ? 'failed' : c.result?.failure !== undefined ? c.result.failure.code : c.result?.isError ? 'isError' : 'ok'}
        </span>
        {c.result !== undefined ? <span class="muted">{c.result.ms} ms</span> : null}
        {running ? (
          <button type="button" name="cancel" disabled={c.cancelling} onClick={() => store.cancel(c.callId)}>
            Cancel
          </button>
        ) : null}
      </div>
      {running && p !== undefined ? (
        <div class="progress" data-testid="progress">
          {typeof p.progress === 'number' && typeof p.total === 'number' && p.total > 0 ? <progress value={p.progress} max={p.total} /> : <progress />}
          <span>{p.message ?? ''}{typeof p.progress === 'number' ? ` ${p.progress}${typeof p.total === 'number' ? `/${p.total}` : ''}` : ''}</span>
        </div>
      ) : null}
      {c.error !== undefined ? <div class="error-text">{c.error.code}: {c.error.message}</div> : null}
      {c.result !== undefined ? <Result result={c.result} /> : null}
    </div>
  );
}

function Result(props: { result: ToolResultJson }) {
  const r = props.result;
  return (
    <div class={`result${r.isError ? ' is-error' : ''}`} data-testid="result">
      {r.failure !== undefined ? <div class="error-text">{r.failure.code}: {r.failure.message}</div> : null}
      {r.content.map((block, i) => {
        if (block.type === 'text') {
          return block.format === 'markdown' ? <Markdown key={i} text={String(block.text ?? '')} /> : <pre key={i} class="text">{String(block.text ?? '')}</pre>;
        }
        const mime = String(block.mimeType ?? '');
        if (block.type === 'image' && typeof block.data === 'string' && /^image\/(png|jpeg|gif|webp)$/.test(mime)) {
          return <img key={i} alt="image result" src={`data:${mime};base64,${block.data}`} />;
        }
        if (block.type === 'image') return <div key={i} class="muted">[image of type {mime}: not shown]</div>;
        return <div key={i} class="muted">[{block.type} content]</div>;
      })}
      {r.structuredContent !== undefined ? (
        <details>
          <summary>structuredContent</summary>
          <pre>{JSON.stringify(r.structuredContent, null, 2)}</pre>
        </details>
      ) : null}
    </div>
  );
}

// ---------------------------------------------------------------------------------------------
// Commands
// ---------------------------------------------------------------------------------------------

function Commands() {
  const [outcomes, setOutcomes] = useState<{ input: string; outcome?: unknown; error?: WireError }[]>([]);
  return (
    <section class="commands">
      {store.commands.length === 0 ? <p class="muted">No commands registered.</p> : null}
      {store.commands.map((c) => <CommandRow key={`${c.extension}/${c.name}`} command={c} onOutcome={(o) => setOutcomes((all) => [o, ...all].slice(0, 30))} />)}
      {outcomes.length > 0 ? <h2>Outcomes</h2> : null}
      {outcomes.map((o, i) => (
        <div class="card outcome" key={outcomes.length - i} data-testid="outcome">
          <code>{o.input}</code>
          {o.error !== undefined ? <div class="error-text">{o.error.code}: {o.error.message}</div> : <pre>{JSON.stringify(o.outcome, null, 2)}</pre>}
        </div>
      ))}
    </section>
  );
}

function CommandRow(props: { command: CommandJson; onOutcome: (o: { input: string; outcome?: unknown; error?: WireError }) => void }) {
  const { command } = props;
  const [args, setArgs] = useState('');
  return (
    <form
      class="card command"
      data-command={command.name}
      onSubmit={(e) => {
        e.preventDefault();
        const input = `/${command.name}${args === '' ? '' : ` ${args}`}`;
        store.request({ op: 'runCommand', input }).then(
          (outcome) => props.onOutcome({ input, outcome }),
          (error: WireError) => props.onOutcome({ input, error }),
        );
      }}
    >
      <strong>/{command.name}</strong> <span class="muted">{command.extension}</span>
      <span class="desc">{command.description}</span>
      <input type="text" name="command-args" placeholder="arguments" value={args} onInput={(e) => setArgs((e.target as HTMLInputElement).value)} />
      <button type="submit" name="run">Run</button>
    </form>
  );
}

// ---------------------------------------------------------------------------------------------
// Panels, activity, problems
// ---------------------------------------------------------------------------------------------

const KEYS: Readonly<Record<string, string>> = {
  ArrowUp: 'up',
  ArrowDown: 'down',
  ArrowLeft: 'left',
  ArrowRight: 'right',
  Enter: 'enter',
  Tab: 'tab',
  Backspace: 'backspace',
  Delete: 'delete',
  Home: 'home',
  End: 'end',
  PageUp: 'pageup',
  PageDown: 'pagedown',
};

function Panels() {
  if (store.panels.length === 0) return null;
  return (
    <div class="panels">
      <h2>Panels</h2>
      {[...store.panels].reverse().map((p, i) => <PanelView key={`${p.extension}/${p.panelId}`} panel={p} focused={i === 0} />)}
    </div>
  );
}

function PanelView(props: { panel: PanelJson; focused: boolean }) {
  const p = props.panel;
  const ref = useRef<HTMLDivElement>(null);
  useEffect(() => {
    if (props.focused) ref.current?.focus();
  }, [props.focused, p.extension, p.panelId]);
  const close = () => void store.request({ op: 'closePanel', extension: p.extension, panelId: p.panelId }).catch(alertError);
  return (
    <div
      class="card panel"
      ref={ref}
      tabIndex={0}
      data-panel={p.panelId}
      data-extension={p.extension}
      onKeyDown={(e) => {
        if (e.ctrlKey || e.metaKey || e.altKey) return;
        if (e.key === 'Escape') {
          e.preventDefault();
          return close();
        }
        const named = KEYS[e.key];
        const rune = named === undefined && [...e.key].length === 1 ? e.key : undefined;
        if (named === undefined && rune === undefined) return;
        e.preventDefault();
        void store.request({ op: 'panelKey', extension: p.extension, panelId: p.panelId, key: named ?? 'rune', text: rune }).catch(alertError);
      }}
    >
      <div class="panel-title">
        <strong>{p.title ?? p.panelId}</strong> <span class="muted">{p.extension}</span>
        <button type="button" class="small" title="close (Esc)" onClick={close}>✕</button>
      </div>
      <pre class="panel-lines">{p.lines.join('\n')}</pre>
      {p.footer !== undefined ? <div class="panel-footer">{p.footer}</div> : null}
      <div class="muted small">focus here: arrows, Enter, Tab and typed characters go to the panel; Esc closes it</div>
    </div>
  );
}

function Activity() {
  const items = store.activity.slice(-100).reverse();
  return (
    <div class="activity">
      <h2>Notes and actions</h2>
      {items.length === 0 ? <p class="muted">Notes, submits, prompts and other actions of the extensions show here.</p> : null}
      {items.map((a, i) => (
        <div key={`${a.at}-${i}`} class={`item kind-${a.kind} level-${a.level ?? ''}`} data-testid="activity">
          <span class="time">{time(a.at)}</span> <span class="ext">{a.extension}</span> <span class="badge">{a.kind === 'note' ? a.level : a.kind}</span> <span class="text">{a.text}</span>
        </div>
      ))}
    </div>
  );
}

function Problems() {
  const items = store.problems.slice(-100).reverse();
  return (
    <div class="problems-list">
      <h2>Diagnostics and warnings</h2>
      {items.length === 0 ? <p class="muted">None so far.</p> : null}
      {items.map((d, i) => (
        <div key={`${d.at}-${i}`} class={`item severity-${d.severity}`} data-testid="problem">
          <span class="time">{time(d.at)}</span> <span class="badge">{d.kind === 'warning' ? 'warning' : d.severity}</span> {d.code !== undefined ? <code>{d.code}</code> : null} <span class="text">{d.message}</span>
        </div>
      ))}
    </div>
  );
}

// ---------------------------------------------------------------------------------------------
// The intercept chain
// ---------------------------------------------------------------------------------------------

function Intercept() {
  const [event, setEvent] = useState<InterceptEvent>('tool_call');
  const [toolName, setToolName] = useState('bash');
  const [toolArgs, setToolArgs] = useState('{"command": "ls"}');
  const [step, setStep] = useState(1);
  const [text, setText] = useState('');
  const [results, setResults] = useState<{ event: InterceptEvent; input: unknown; result?: InterceptResultJson; error?: WireError }[]>([]);
  const subscribed = store.extensions.filter((e) => ((e.subscriptions as { intercept?: string[] } | undefined)?.intercept ?? []).includes(event)).map((e) => e.name);
  const send = (e: Event) => {
    e.preventDefault();
    let input: Record<string, unknown>;
    try {
      input =
        event === 'tool_call'
          ? { tool_name: toolName, tool_args: JSON.parse(toolArgs === '' ? '{}' : toolArgs) as unknown }
          : event === 'turn_start'
            ? { step }
            : event === 'assistant_message'
              ? { text }
              : { systemPrompt: text };
    } catch (err) {
      setResults((r) => [{ event, input: toolArgs, error: { code: 'BAD_JSON', message: (err as Error).message } }, ...r]);
      return;
    }
    store.request<InterceptResultJson>({ op: 'intercept', event, input }).then(
      (result) => setResults((r) => [{ event, input, result }, ...r].slice(0, 20)),
      (error: WireError) => setResults((r) => [{ event, input, error }, ...r].slice(0, 20)),
    );
  };
  return (
    <section class="intercept">
      <form class="card" onSubmit={send}>
        <div class="section-head">
          <h2>Send through the intercept chain</h2>
        </div>
        <div class="field">
          <label class="field-label" for="intercept-event">event</label>
          <select id="intercept-event" name="intercept-event" value={event} onChange={(e) => setEvent((e.target as HTMLSelectElement).value as InterceptEvent)}>
            <option value="tool_call">tool_call</option>
            <option value="turn_start">turn_start</option>
            <option value="assistant_message">assistant_message</option>
            <option value="before_agent_start">system prompt (before_agent_start)</option>
          </select>
        </div>
        {event === 'tool_call' ? (
          <>
            <div class="field">
              <label class="field-label" for="intercept-tool">tool name</label>
              <input id="intercept-tool" name="intercept-tool" list="tool-names" value={toolName} onInput={(e) => setToolName((e.target as HTMLInputElement).value)} />
              <datalist id="tool-names">{['bash', 'read', 'write', 'edit', ...store.tools.map((t) => t.name)].map((n) => <option key={n} value={n} />)}</datalist>
            </div>
            <div class="field">
              <label class="field-label" for="intercept-args">tool args (JSON)</label>
              <textarea id="intercept-args" name="intercept-args" rows={4} value={toolArgs} onInput={(e) => setToolArgs((e.target as HTMLTextAreaElement).value)} />
            </div>
          </>
        ) : event === 'turn_start' ? (
          <div class="field">
            <label class="field-label" for="intercept-step">step</label>
            <input id="intercept-step" name="intercept-step" type="number" value={String(step)} onInput={(e) => setStep(Number((e.target as HTMLInputElement).value))} />
          </div>
        ) : (
          <div class="field">
            <label class="field-label" for="intercept-text">{event === 'assistant_message' ? 'assistant text' : 'system prompt'}</label>
            <textarea id="intercept-text" name="intercept-text" rows={5} value={text} onInput={(e) => setText((e.target as HTMLTextAreaElement).value)} />
          </div>
        )}
        <p class="muted">Subscribed: {subscribed.length === 0 ? 'no extension (only interceptors the embedder added)' : subscribed.join(' → ')}</p>
        <button type="submit" class="primary" name="send-intercept">Send</button>
      </form>
      {results.map((r, i) => (
        <div key={results.length - i} class={`card verdict ${r.result?.block === true ? 'blocked' : r.error !== undefined ? 'failed' : 'allowed'}`} data-testid="verdict">
          <div class="verdict-head">
            <strong>{r.event}</strong>{' '}
            {r.error !== undefined ? (
              <span class="error-text">{r.error.code}: {r.error.message}</span>
            ) : r.result!.block ? (
              <span class="badge blocked">blocked by {r.result!.blockedBy ?? '?'}: {r.result!.reason ?? ''}</span>
            ) : (
              <span class="badge allowed">{r.result!.modified ? 'allowed, rewritten' : 'allowed'}</span>
            )}
            {r.result !== undefined ? <span class="muted"> {r.result.ms} ms</span> : null}
          </div>
          {r.result !== undefined ? (
            <>
              <table class="trace">
                <thead>
                  <tr><th>#</th><th>interceptor</th><th>decision</th><th>ms</th><th>message</th><th>its answer</th></tr>
                </thead>
                <tbody>
                  {r.result.trace.length === 0 ? <tr><td colSpan={6} class="muted">no interceptor was asked</td></tr> : null}
                  {r.result.trace.map((s, j) => (
                    <tr key={j} class={`decision-${s.decision}`}>
                      <td>{j + 1}</td>
                      <td>{s.interceptor}{s.revalidation ? ' (re-ask)' : ''}</td>
                      <td>{s.decision}{s.failure !== undefined ? ` (${s.failure})` : ''}</td>
                      <td>{Math.round(s.ms * 10) / 10}</td>
                      <td>{s.message ?? ''}</td>
                      <td><code class="answer">{s.answer === undefined ? '' : JSON.stringify(s.answer)}</code></td>
                    </tr>
                  ))}
                </tbody>
              </table>
              {r.result.modified && r.result.args !== undefined ? <pre>args after the chain: {JSON.stringify(r.result.args, null, 2)}</pre> : null}
              {r.result.text !== undefined && (r.result.modified || r.event === 'before_agent_start') ? <pre>{r.event === 'before_agent_start' ? 'system prompt' : 'text'} after the chain: {r.result.text}</pre> : null}
            </>
          ) : null}
        </div>
      ))}
    </section>
  );
}

function alertError(error: WireError | Error): void {
  store.addProblem('code' in error ? String(error.code) : 'ERROR', error.message);
}

store.connect();
render(<App />, document.getElementById('app')!);

/** An ExtensionInfo field the page has no row of its own for: the sandbox as `run` prints it, anything else as is. */
function fieldText(key: string, value: unknown): string {
  if (typeof value === 'string' || typeof value === 'number' || typeof value === 'boolean') return String(value);
  if (key === 'sandbox' && typeof value === 'object' && value !== null) {
    const s = value as { mode?: string; active?: boolean; backend?: string; network?: string; writable?: string[]; reason?: string };
    if (s.active === true) return `${s.backend} (${s.mode}), network ${s.network}, writes ${[...(s.writable ?? []), 'a private /tmp'].join(', ')}`;
    return s.reason === undefined ? String(s.mode) : `${s.mode}: ${s.reason}`;
  }
  return JSON.stringify(value);
}

import { useEffect, useState } from 'preact/hooks';
import { api } from '../api.js';
import { Alert } from '../components.js';

interface Credits {
  total_allocation: number;
  credits_used: number;
  credits_remaining: number;
  credits_held: number;
  percentage_used: number;
  usage_summary: Record<string, number>;
  period: { start: string; end: string };
  subscription: { plan: string; renews_at: string };
}

interface Summary {
  summary: { documents_processed: number; extractions_run: number; chat_queries: number; total_pages: number; total_credits_used: number };
  trends: { documents: { change_percent: number | null }; extractions: { change_percent: number | null } };
}

type Row = { date: string } & Record<string, number | null>;

const CHARTS: { metric: string; title: string; unit: string }[] = [
  { metric: 'credits_used', title: 'Credits used per day', unit: 'credits' },
  { metric: 'documents_processed', title: 'Documents processed per day', unit: 'documents' },
  { metric: 'pages_processed', title: 'Pages processed per day', unit: 'pages' },
  { metric: 'extractions_run', title: 'Extractions per day', unit: 'extractions' },
];

const num = (n: number) => n.toLocaleString(undefined, { maximumFractionDigits: 2 });
const day = (iso: string) => new Date(`${iso.slice(0, 10)}T00:00:00Z`).toLocaleDateString(undefined, { month: 'short', day: 'numeric', timeZone: 'UTC' });

/** Settings › Credits and usage: this month's credits, the last 30 days as daily charts, and a CSV export. */
export function UsagePage() {
  const [credits, setCredits] = useState<Credits | null>(null);
  const [summary, setSummary] = useState<Summary | null>(null);
  const [rows, setRows] = useState<Row[] | null>(null);
  const [error, setError] = useState<string | null>(null);
  // whose credits: the caller's own, or an organization's (billed to the organization)
  const [orgs, setOrgs] = useState<{ id: string; name: string }[]>([]);
  const [account, setAccount] = useState('');
  useEffect(() => {
    api<Credits>(`/api/user/credits${account ? `?organization_id=${account}` : ''}`)
      .then(setCredits)
      .catch((e: Error) => setError(e.message));
  }, [account]);
  useEffect(() => {
    const fail = (e: Error) => setError(e.message);
    api<{ organizations: { id: string; name: string }[] }>('/api/organizations')
      .then((r) => setOrgs(r.organizations))
      .catch(fail);
    api<Summary>('/api/analytics?period=30d').then(setSummary).catch(fail);
    api<{ data: Row[] }>(`/api/analytics/query?period=30d&aggregation=daily&metrics=${CHARTS.map((c) => c.metric).join(',')}`)
      .then((r) => setRows(r.data))
      .catch(fail);
  }, []);

  return (
    <section class="usage">
      <h1>Credits and usage</h1>
      <Alert error={error} />
      {orgs.length > 0 && (
        <label class="narrow">
          Credits of
          <select value={account} onChange={(e) => setAccount((e.currentTarget as HTMLSelectElement).value)}>
            <option value="">my own resources</option>
            {orgs.map((o) => (
              <option key={o.id} value={o.id}>
                {o.name} (organization)
              </option>
            ))}
          </select>
        </label>
      )}
      {credits ? (
        <div class="cards">
          <div class="card" data-card="credits">
            <h2>This month ({credits.subscription.plan} plan)</h2>
            {account && <p class="hint">The organization's balance: its allocation is the plan of its owner.</p>}
            <dl class="figures">
              <dt>Allocation</dt>
              <dd data-figure="allocation">{num(credits.total_allocation)}</dd>
              <dt>Used</dt>
              <dd data-figure="used">{num(credits.credits_used)}</dd>
              <dt>Remaining</dt>
              <dd data-figure="remaining">{num(credits.credits_remaining)}</dd>
              {credits.credits_held > 0 && (
                <>
                  <dt>Held by work under way</dt>
                  <dd>{num(credits.credits_held)}</dd>
                </>
              )}
            </dl>
            <p>
              <meter min={0} max={100} value={credits.percentage_used} low={70} high={90} optimum={0} aria-label="share of the allocation used" /> {credits.percentage_used}% used · renews{' '}
              {new Date(credits.subscription.renews_at).toLocaleDateString()}
            </p>
          </div>
          <div class="card">
            <h2>By operation</h2>
            <table class="keylist">
              <caption class="sr-only">Credits used this month by operation</caption>
              <thead>
                <tr>
                  <th scope="col">Operation</th>
                  <th scope="col">Credits</th>
                </tr>
              </thead>
              <tbody>
                {Object.entries(credits.usage_summary).map(([op, n]) => (
                  <tr key={op} data-operation={op}>
                    <td>{op}</td>
                    <td>{num(n)}</td>
                  </tr>
                ))}
              </tbody>
            </table>
          </div>
          {summary && (
            <div class="card">
              <h2>Last 30 days</h2>
              <dl class="figures">
                <dt>Documents</dt>
                <dd>
                  {num(summary.summary.documents_processed)} <Trend v={summary.trends.documents.change_percent} />
                </dd>
                <dt>Pages</dt>
                <dd>{num(summary.summary.total_pages)}</dd>
                <dt>Extractions</dt>
                <dd>
                  {num(summary.summary.extractions_run)} <Trend v={summary.trends.extractions.change_percent} />
                </dd>
                <dt>Chat questions</dt>
                <dd>{num(summary.summary.chat_queries)}</dd>
                <dt>Credits</dt>
                <dd>{num(summary.summary.total_credits_used)}</dd>
              </dl>
            </div>
          )}
        </div>
      ) : (
        !error && <p role="status">Loading…</p>
      )}
      <p>
        <a href="/api/analytics/export?format=csv&period=30d" download>
          Export the last 30 days (CSV)
        </a>
      </p>
      {rows && (
        <div class="charts">
          {CHARTS.map((c) => (
            <BarChart key={c.metric} title={c.title} unit={c.unit} rows={rows.map((r) => ({ label: r.date, value: Number(r[c.metric] ?? 0) }))} id={`chart-${c.metric}`} />
          ))}
        </div>
      )}
    </section>
  );
}

function Trend(props: { v: number | null }) {
  if (props.v === null) return null;
  return (
    <span class="conf">
      ({props.v >= 0 ? '+' : ''}
      {props.v}% on the 30 days before)
    </span>
  );
}

/**
 * A daily bar chart as SVG: the picture is one image with a summary for screen readers, and the numbers
 * are also a table (shown on demand), so nothing is only in the drawing.
 */
function BarChart(props: { id: string; title: string; unit: string; rows: { label: string; value: number }[] }) {
  const { rows } = props;
  const W = 600;
  const H = 160;
  const PAD = { left: 36, right: 8, top: 10, bottom: 22 };
  const max = Math.max(1, ...rows.map((r) => r.value));
  const total = rows.reduce((s, r) => s + r.value, 0);
  const peak = rows.reduce((m, r) => (r.value > m.value ? r : m), rows[0] ?? { label: '', value: 0 });
  const bw = (W - PAD.left - PAD.right) / Math.max(1, rows.length);
  const y = (v: number) => PAD.top + (H - PAD.top - PAD.bottom) * (1 - v / max);
  const summary = rows.length
    ? `${props.title}, ${day(rows[0]!.label)} to ${day(rows[rows.length - 1]!.label)}: ${num(total)} ${props.unit} in all${total ? `, most on ${day(peak.label)} (${num(peak.value)})` : ''}.`
    : `${props.title}: no data.`;
  return (
    <figure class="chart" data-chart={props.id}>
      <figcaption id={`${props.id}-title`}>{props.title}</figcaption>
      <svg viewBox={`0 0 ${W} ${H}`} role="img" aria-labelledby={`${props.id}-title ${props.id}-desc`} preserveAspectRatio="none">
        <desc id={`${props.id}-desc`}>{summary}</desc>
        <line x1={PAD.left} x2={W - PAD.right} y1={y(0)} y2={y(0)} class="axis" />
        <text x={PAD.left - 4} y={y(max) + 4} class="tick" text-anchor="end">
          {num(max)}
        </text>
        <text x={PAD.left - 4} y={y(0)} class="tick" text-anchor="end">
          0
        </text>
        {rows.map((r, i) => (
          <rect key={r.label} x={PAD.left + i * bw + bw * 0.15} width={bw * 0.7} y={y(r.value)} height={Math.max(0, y(0) - y(r.value))} class="bar">
            <title>{`${day(r.label)}: ${num(r.value)} ${props.unit}`}</title>
          </rect>
        ))}
        {rows.length > 0 && (
          <>
            <text x={PAD.left} y={H - 6} class="tick">
              {day(rows[0]!.label)}
            </text>
            <text x={W - PAD.right} y={H - 6} class="tick" text-anchor="end">
              {day(rows[rows.length - 1]!.label)}
            </text>
          </>
        )}
      </svg>
      <p class="sr-only">{summary}</p>
      <details>
        <summary>Show as a table</summary>
        <div class="tablewrap" tabIndex={0} aria-label={`${props.title} as a table`}>
          <table>
            <thead>
              <tr>
                <th scope="col">Day</th>
                <th scope="col">{props.unit}</th>
              </tr>
            </thead>
            <tbody>
              {rows.map((r) => (
                <tr key={r.label}>
                  <td>{r.label}</td>
                  <td>{num(r.value)}</td>
                </tr>
              ))}
            </tbody>
          </table>
        </div>
      </details>
    </figure>
  );
}

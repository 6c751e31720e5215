import { useEffect, useMemo, useRef, useState } from 'preact/hooks';
import { api, apiText } from '../api.js';
import type { BBox, Layout, LayoutBlock, LayoutChunk, LayoutTable } from '../api.js';
import { Alert, Link, percent } from '../components.js';
import { ExtractionPanel } from './extraction.js';
import { SplitPanel } from './split.js';
import { EditPanel } from './edit.js';
import type { EditElement } from './edit.js';
import { useLocation } from '../router.js';
import type { Selection } from './selection.js';

export type Source = { kind: 'document'; id: string } | { kind: 'signed'; jobId: string; expires: string; sig: string };


type View = 'pages' | 'markdown' | 'json';
type Tab = 'inspect' | 'extract' | 'split' | 'edit';

/** Formats the edit area fills: PDFs and images. */
const EDITABLE = new Set(['pdf', 'png', 'jpg', 'jpeg', 'gif', 'webp', 'bmp', 'tif', 'tiff']);

function layoutUrl(s: Source): string {
  return s.kind === 'document' ? `/api/documents/${s.id}/layout` : `/studio/jobs/${s.jobId}/layout?expires=${encodeURIComponent(s.expires)}&sig=${encodeURIComponent(s.sig)}`;
}

function markdownUrl(s: Source): string {
  return s.kind === 'document' ? `/api/documents/${s.id}/markdown` : `/studio/jobs/${s.jobId}?expires=${encodeURIComponent(s.expires)}&sig=${encodeURIComponent(s.sig)}&format=markdown`;
}

function imageUrl(s: Source, page: number): string {
  return s.kind === 'document' ? `/api/documents/${s.id}/pages/${page}/image` : `/studio/jobs/${s.jobId}/pages/${page}/image?expires=${encodeURIComponent(s.expires)}&sig=${encodeURIComponent(s.sig)}`;
}

const overlaps = (a: BBox, b: BBox) => a.x < b.x + b.width && b.x < a.x + a.width && a.y < b.y + b.height && b.y < a.y + a.height;

/**
 * The document view: every page (image drawn by the service) with the blocks, tables and chunks as boxes
 * coloured by type; a box opens its text, confidence and chunk. Pages are drawn only once they come near
 * the screen (IntersectionObserver), so a long document stays light.
 */
export function DocumentPage(props: { source: Source }) {
  const { source } = props;
  const [layout, setLayout] = useState<Layout | null>(null);
  const [error, setError] = useState<string | null>(null);
  const [view, setView] = useState<View>('pages');
  const [layers, setLayers] = useState({ blocks: true, tables: true, chunks: false });
  const [selected, setSelected] = useState<Selection>(null);
  const [tab, setTab] = useState<Tab>('inspect');
  // the fields of the Edit tab, drawn on the pages while that tab is open
  const [fields, setFields] = useState<EditElement[] | null>(null);
  const [activeField, setActiveField] = useState<string | null>(null);
  // the Split tab is made when first opened (it asks for the sections) and kept
  const [splitSeen, setSplitSeen] = useState(false);
  useEffect(() => {
    if (tab === 'split') setSplitSeen(true);
  }, [tab]);
  const [markdown, setMarkdown] = useState<string | null>(null);
  // the Markdown is fetched when first shown
  useEffect(() => {
    if (view !== 'markdown' || markdown !== null) return;
    apiText(markdownUrl(source))
      .then(setMarkdown)
      .catch((e: Error) => setError(e.message));
  }, [view]);

  useEffect(() => {
    setLayout(null);
    api<Layout>(layoutUrl(source))
      .then(setLayout)
      .catch((e: Error) => setError(e.message));
  }, [layoutUrl(source)]);

  const byPage = useMemo(() => {
    const m = new Map<number, { blocks: LayoutBlock[]; tables: LayoutTable[]; chunks: { chunk: LayoutChunk; bbox: BBox }[] }>();
    if (!layout) return m;
    for (const p of layout.pages) m.set(p.number, { blocks: [], tables: [], chunks: [] });
    for (const b of layout.blocks) if (b.bbox && b.type !== 'table') m.get(b.page)?.blocks.push(b);
    for (const t of layout.tables) if (t.bbox) m.get(t.page)?.tables.push(t);
    for (const c of layout.chunks) for (const box of c.boxes) m.get(box.page)?.chunks.push({ chunk: c, bbox: box.bbox });
    return m;
  }, [layout]);

  // a citation opens a page (?page=n) and its chunk (?chunk=id): chunk boxes shown, the chunk selected
  const { query } = useLocation();
  const focusPage = Number(query.get('page')) || 0;
  const focusChunk = query.get('chunk');
  useEffect(() => {
    if (!layout || !focusPage) return;
    const chunk = focusChunk ? layout.chunks.find((c) => c.id === focusChunk) : undefined;
    if (chunk) {
      setLayers((l) => ({ ...l, chunks: true }));
      setSelected({ kind: 'chunk', index: chunk.index });
    }
    requestAnimationFrame(() => document.getElementById(`page-${focusPage}`)?.scrollIntoView({ block: 'start' }));
  }, [layout, focusPage, focusChunk]);

  // an evidence box picked in the extraction panel: its page comes into view
  useEffect(() => {
    if (selected?.kind !== 'evidence') return;
    document.getElementById(`page-${selected.page}`)?.scrollIntoView({ block: 'center' });
  }, [selected]);

  if (error) return <Alert error={error} />;
  if (!layout) return <p role="status">Loading the document…</p>;

  const editable = EDITABLE.has(layout.file_type.toLowerCase());
  const tabs: [Tab, string][] = [['inspect', 'Inspect'], ['extract', 'Extract'], ['split', 'Split'], ...(editable ? [['edit', 'Edit'] as [Tab, string]] : [])];
  return (
    <section class="docview">
      <div class="docbar">
        {source.kind === 'document' && <Link to="/documents">← Documents</Link>}
        <h1>{layout.name}</h1>
        <span class="meta">
          {layout.pages.length} page{layout.pages.length === 1 ? '' : 's'} · {layout.blocks.length} blocks · {layout.tables.length} tables · {layout.chunks.length} chunks
        </span>
        {source.kind === 'document' && (
          <a class="download" href={`/v1/documents/${source.id}/file`} download={layout.name}>
            Download the original file
          </a>
        )}
      </div>
      <div class="toolbar" role="toolbar" aria-label="View">
        <div class="segmented" role="group" aria-label="Show">
          {(['pages', 'markdown', 'json'] as View[]).map((v) => (
            <button key={v} type="button" aria-pressed={view === v} onClick={() => setView(v)}>
              {v === 'pages' ? 'Pages' : v === 'markdown' ? 'Markdown' : 'JSON'}
            </button>
          ))}
        </div>
        {view === 'pages' && (
          <fieldset class="layers">
            <legend class="sr-only">Boxes</legend>
            {(['blocks', 'tables', 'chunks'] as const).map((k) => (
              <label key={k}>
                <input type="checkbox" checked={layers[k]} onChange={(e) => setLayers({ ...layers, [k]: (e.currentTarget as HTMLInputElement).checked })} /> {k}
              </label>
            ))}
          </fieldset>
        )}
        <Legend fields={tab === 'edit' && !!fields?.length} />
      </div>
      {layout.issues.length > 0 && (
        <details class="issues">
          <summary>{layout.issues.length} issue(s) while reading</summary>
          <ul>
            {layout.issues.map((i, n) => (
              <li key={n}>{i.message}</li>
            ))}
          </ul>
        </details>
      )}
      <div class="docbody">
        <div class="pages" aria-label="Pages">
          <p id="boxes-help" class="sr-only">
            Each box on a page is a button: Tab reaches the page, the arrow keys move between its boxes, Enter shows a box in the panel.
          </p>
          {view === 'pages' &&
            layout.pages.map((p) => (
              <PageView
                key={p.number}
                page={p}
                image={layout.page_images ? imageUrl(source, p.number) : null}
                items={byPage.get(p.number)!}
                layers={layers}
                selected={selected}
                onSelect={setSelected}
                fields={tab === 'edit' ? fields?.filter((f) => f.page === p.number) ?? null : null}
                activeField={activeField}
                onField={setActiveField}
              />
            ))}
          {view === 'markdown' && (
            <pre class="source" tabIndex={0} aria-label="Markdown">
              {markdown ?? 'Loading…'}
            </pre>
          )}
          {view === 'json' && (
            <pre class="source" tabIndex={0} aria-label="JSON">
              {JSON.stringify({ pages: layout.pages, blocks: layout.blocks, tables: layout.tables, chunks: layout.chunks }, null, 2)}
            </pre>
          )}
        </div>
        <aside class="panel">
          {source.kind === 'document' && (
            <div class="tabs" role="tablist" aria-label="Panel">
              {tabs.map(([t, label]) => (
                <button key={t} type="button" role="tab" id={`tab-${t}`} aria-selected={tab === t} aria-controls={`panel-${t}`} onClick={() => setTab(t)}>
                  {label}
                </button>
              ))}
            </div>
          )}
          <div id="panel-inspect" role="tabpanel" aria-labelledby="tab-inspect" hidden={tab !== 'inspect'}>
            <Inspector layout={layout} selected={selected} />
          </div>
          {source.kind === 'document' && (
            <div id="panel-extract" role="tabpanel" aria-labelledby="tab-extract" hidden={tab !== 'extract'}>
              <ExtractionPanel documentId={source.id} selected={selected} onEvidence={setSelected} />
            </div>
          )}
          {source.kind === 'document' && (
            <div id="panel-split" role="tabpanel" aria-labelledby="tab-split" hidden={tab !== 'split'}>
              {splitSeen && <SplitPanel documentId={source.id} layout={layout} />}
            </div>
          )}
          {source.kind === 'document' && editable && (
            <div id="panel-edit" role="tabpanel" aria-labelledby="tab-edit" hidden={tab !== 'edit'}>
              <EditPanel documentId={source.id} elements={fields} onElements={setFields} active={activeField} onActive={setActiveField} />
            </div>
          )}
        </aside>
      </div>
    </section>
  );
}

const TYPES = ['heading', 'paragraph', 'list_item', 'key_value', 'table', 'figure', 'caption', 'header', 'footer', 'chunk'];

function Legend(props: { fields?: boolean }) {
  return (
    <ul class="legend" aria-label="Box colours">
      {(props.fields ? [...TYPES, 'field'] : TYPES).map((t) => (
        <li key={t}>
          <span class={`swatch t-${t}`} aria-hidden="true" />
          {t === 'field' ? 'form field' : t.replace('_', ' ')}
        </li>
      ))}
    </ul>
  );
}

function boxStyle(b: BBox, p: { width: number; height: number }) {
  return { left: `${(b.x / p.width) * 100}%`, top: `${(b.y / p.height) * 100}%`, width: `${(b.width / p.width) * 100}%`, height: `${(b.height / p.height) * 100}%` };
}

const short = (s: string, n = 60) => (s.length > n ? `${s.slice(0, n)}…` : s);

function PageView(props: {
  page: Layout['pages'][number];
  image: string | null;
  items: { blocks: LayoutBlock[]; tables: LayoutTable[]; chunks: { chunk: LayoutChunk; bbox: BBox }[] };
  layers: { blocks: boolean; tables: boolean; chunks: boolean };
  selected: Selection;
  onSelect: (s: Selection) => void;
  fields?: EditElement[] | null;
  activeField?: string | null;
  onField?: (id: string) => void;
}) {
  const { page, items, layers, selected, onSelect } = props;
  const ref = useRef<HTMLDivElement>(null);
  // drawn once near the screen, and kept (scrolling back does not load the image again)
  const [near, setNear] = useState(false);
  // a refused image (e.g. 429 when many pages come in at once) is asked again a little later, three times
  const [attempt, setAttempt] = useState(0);
  const imageFailed = attempt > 3;
  const retry = () => setTimeout(() => setAttempt((a) => a + 1), 1500 * 2 ** attempt);
  useEffect(() => {
    const el = ref.current;
    if (!el || near) return;
    const io = new IntersectionObserver((entries) => {
      if (entries.some((e) => e.isIntersecting)) {
        setNear(true);
        io.disconnect();
      }
    }, { rootMargin: '600px 0px' });
    io.observe(el);
    return () => io.disconnect();
  }, [near]);
  const evidence = selected?.kind === 'evidence' && selected.page === page.number ? selected : null;
  const evidenceRef = useRef<HTMLDivElement>(null);
  // the evidence box itself comes to the middle of the screen once its page is drawn
  useEffect(() => {
    if (evidence && near) evidenceRef.current?.scrollIntoView({ block: 'center' });
  }, [evidence, near]);
  const isSel = (kind: string, index: number) => selected?.kind === kind && (selected as { index: number }).index === index;
  // one tab stop per page (the last box reached, else the first); the arrow keys move between its boxes
  const [current, setCurrent] = useState<string | null>(null);
  const first = layers.tables && items.tables[0] ? `t${items.tables[0].index}` : layers.blocks && items.blocks[0] ? `b${items.blocks[0].index}` : layers.chunks && items.chunks[0] ? `c${items.chunks[0].chunk.index}-0` : props.fields?.[0] ? `f${props.fields[0].id}` : null;
  const stop = (key: string) => (key === (current ?? first) ? 0 : -1);
  const onKey = (e: KeyboardEvent) => {
    const boxes = Array.from(ref.current?.querySelectorAll<HTMLButtonElement>('button.box') ?? []);
    const i = boxes.indexOf(document.activeElement as HTMLButtonElement);
    if (i < 0) return;
    const j = { ArrowDown: i + 1, ArrowRight: i + 1, ArrowUp: i - 1, ArrowLeft: i - 1, Home: 0, End: boxes.length - 1 }[e.key];
    if (j === undefined) return;
    e.preventDefault();
    const next = boxes[Math.max(0, Math.min(boxes.length - 1, j))]!;
    setCurrent(next.dataset.key ?? null);
    next.focus();
  };

  return (
    <div class="pagewrap" id={`page-${page.number}`}>
      <h2 class="pagenum">
        Page {page.number}
        {page.ocr ? ` · OCR ${percent(page.confidence)}` : ''}
      </h2>
      <div ref={ref} class="page" role="group" aria-label={`Page ${page.number}`} aria-describedby="boxes-help" data-page={page.number} data-loaded={near ? 'true' : 'false'} style={{ aspectRatio: `${page.width} / ${page.height}` }} onKeyDown={onKey}>
        {near && (
          <>
            {props.image && !imageFailed && <img src={attempt ? `${props.image}${props.image.includes('?') ? '&' : '?'}attempt=${attempt}` : props.image} alt={`Page ${page.number}`} decoding="async" onError={() => (attempt < 3 ? retry() : setAttempt(4))} />}
            {layers.tables &&
              items.tables.map((t) => (
                <button key={`t${t.index}`} data-key={`t${t.index}`} tabIndex={stop(`t${t.index}`)} onFocus={() => setCurrent(`t${t.index}`)} type="button" class={`box t-table${isSel('table', t.index) ? ' selected' : ''}`} style={boxStyle(t.bbox!, page)} aria-label={`Table ${t.rows} by ${t.cols}, page ${page.number}`} aria-pressed={isSel('table', t.index)} onClick={() => onSelect({ kind: 'table', index: t.index })} />
              ))}
            {layers.blocks &&
              items.blocks.map((b) => (
                <button key={`b${b.index}`} data-key={`b${b.index}`} tabIndex={stop(`b${b.index}`)} onFocus={() => setCurrent(`b${b.index}`)} type="button" class={`box t-${b.type}${isSel('block', b.index) ? ' selected' : ''}`} style={boxStyle(b.bbox!, page)} aria-label={`${b.type.replace('_', ' ')}: ${short(b.text)}`} aria-pressed={isSel('block', b.index)} onClick={() => onSelect({ kind: 'block', index: b.index })} />
              ))}
            {layers.chunks &&
              items.chunks.map(({ chunk, bbox }, i) => (
                <button key={`c${chunk.index}-${i}`} data-key={`c${chunk.index}-${i}`} tabIndex={stop(`c${chunk.index}-${i}`)} onFocus={() => setCurrent(`c${chunk.index}-${i}`)} type="button" class={`box t-chunk${isSel('chunk', chunk.index) ? ' selected' : ''}`} style={boxStyle(bbox, page)} aria-label={`Chunk ${chunk.index + 1}: ${short(chunk.content)}`} aria-pressed={isSel('chunk', chunk.index)} onClick={() => onSelect({ kind: 'chunk', index: chunk.index })} />
              ))}
            {props.fields?.map((f) => (
              <button key={`f${f.id}`} data-key={`f${f.id}`} data-element={f.id} tabIndex={stop(`f${f.id}`)} onFocus={() => setCurrent(`f${f.id}`)} type="button" class={`box t-field${props.activeField === f.id ? ' selected' : ''}`} style={boxStyle(f.bbox, page)} aria-label={`Field ${f.label || f.id} (${f.type.replace('_', ' ')})`} aria-pressed={props.activeField === f.id} onClick={() => props.onField?.(f.id)} />
            ))}
            {evidence && <div ref={evidenceRef} class="box evidence" style={boxStyle(evidence.bbox, page)} role="img" aria-label={`Evidence of ${evidence.field}: ${short(evidence.text)}`} />}
          </>
        )}
      </div>
    </div>
  );
}

/** The selected box: its text, type, confidence, and the chunk(s) it belongs to. */
function Inspector(props: { layout: Layout; selected: Selection }) {
  const { layout, selected } = props;
  if (!selected) return <p class="hint">Select a box on a page (click it, or Tab to it and press Enter) to see its text, confidence and chunk.</p>;
  const chunksOf = (page: number, bbox: BBox | null) => (bbox ? layout.chunks.filter((c) => c.boxes.some((x) => x.page === page && overlaps(x.bbox, bbox))) : []);
  let title = '';
  let text = '';
  let confidence = 0;
  let page = 0;
  let bbox: BBox | null = null;
  let table: LayoutTable | null = null;
  if (selected.kind === 'block') {
    const b = props.layout.blocks[selected.index]!;
    [title, text, confidence, page, bbox] = [b.type.replace('_', ' '), b.text, b.confidence, b.page, b.bbox];
  } else if (selected.kind === 'table') {
    table = layout.tables[selected.index]!;
    [title, text, confidence, page, bbox] = [`table ${table.rows} × ${table.cols}`, '', table.confidence, table.page, table.bbox];
  } else if (selected.kind === 'chunk') {
    const c = layout.chunks.find((x) => x.index === selected.index)!;
    [title, text, confidence, page] = [`chunk ${c.index + 1} (${c.type})`, c.content, c.confidence, c.page];
  } else {
    [title, text, confidence, page, bbox] = [`evidence of ${selected.field}`, selected.text, selected.confidence, selected.page, selected.bbox];
  }
  const chunks = selected.kind === 'chunk' ? [] : chunksOf(page, bbox);
  return (
    <div class="inspector" aria-live="polite">
      <h2>{title}</h2>
      <dl>
        <dt>Page</dt>
        <dd>{page}</dd>
        <dt>Confidence</dt>
        <dd>
          <meter min={0} max={1} value={confidence} aria-label="confidence" /> {percent(confidence)}
        </dd>
      </dl>
      {text && <p class="text">{text}</p>}
      {table && <TableView table={table} />}
      {chunks.length > 0 && (
        <>
          <h3>Chunk{chunks.length > 1 ? 's' : ''}</h3>
          {chunks.map((c) => (
            <details key={c.id}>
              <summary>
                Chunk {c.index + 1} · {c.type} · {percent(c.confidence)}
              </summary>
              <p class="text">{c.content}</p>
            </details>
          ))}
        </>
      )}
    </div>
  );
}

function TableView(props: { table: LayoutTable }) {
  const { table } = props;
  const rows: (typeof table.cells)[] = Array.from({ length: table.rows }, () => []);
  for (const c of table.cells) rows[c.row]?.push(c);
  return (
    <div class="tablewrap" tabIndex={0} aria-label="Table content">
      <table>
        <tbody>
          {rows.map((r, i) => (
            <tr key={i}>
              {r
                .sort((a, b) => a.col - b.col)
                .map((c) => (c.header ? <th key={c.col} colSpan={c.col_span} rowSpan={c.row_span}>{c.text}</th> : <td key={c.col} colSpan={c.col_span} rowSpan={c.row_span}>{c.text}</td>))}
            </tr>
          ))}
        </tbody>
      </table>
    </div>
  );
}

import type { BBox, Table } from '@quire/core';

/** A text run from the PDF text layer, in page points (origin top-left, y down). */
export interface TextItem {
  str: string;
  x: number;
  /** top and bottom of the glyph box, baseline in between */
  top: number;
  bottom: number;
  baseline: number;
  width: number;
  /** font size in points */
  size: number;
  bold: boolean;
  italic?: boolean;
  rtl: boolean;
}

/** A ruling line in page points: horizontal when y0 === y1, vertical when x0 === x1. */
export interface Rule {
  x0: number;
  y0: number;
  x1: number;
  y1: number;
}

export type TextElementType = 'paragraph' | 'list_item' | 'key_value' | 'caption';

export interface TextElement {
  kind: 'text';
  type: TextElementType;
  text: string;
  bbox: BBox;
  lines: number;
  /** dominant font size (points) and whether (nearly) all of the text is bold / italic */
  size: number;
  bold: boolean;
  italic?: boolean;
  key?: string;
  value?: string;
}

export interface TableElement {
  kind: 'table';
  table: Omit<Table, 'page'>;
  bbox: BBox;
}

export type PageElement = TextElement | TableElement;

/** What a worker sends back for one page. */
export interface PageResult {
  number: number;
  width: number;
  height: number;
  /** no text layer: the page must be OCRed */
  needsOcr: boolean;
  /** elements in reading order */
  elements: PageElement[];
  error?: string;
}

export interface OpenResult {
  numPages: number;
  /** the first pages, parsed by the worker that opened the document */
  pages: PageResult[];
  metadata: { title?: string; author?: string; creationDate?: string; [k: string]: unknown };
}

export type WorkerRequest =
  | { id: number; type: 'open'; jobId: string; path: string; firstTo: number }
  | { id: number; type: 'pages'; jobId: string; path: string; from: number; to: number }
  | { id: number; type: 'render'; jobId: string; path: string; page: number; dpi: number; out: string; rotate?: number }
  | { id: number; type: 'release'; jobId: string };

export type WorkerResponse =
  | { id: number; ok: true; result: unknown }
  | { id: number; ok: false; error: { name: string; message: string } };

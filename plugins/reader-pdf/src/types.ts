import type { BBox } from '@quire/core';

import type { TextItem, Rule, TableElement } from '@quire/plugin-reader-image';

/** Text items, ruling lines and table elements are the shared grid types of the image reader. */
export type { TextItem, Rule, TableElement };

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

export type PageElement = TextElement | TableElement;

/** What a worker sends back for one page. */
export interface PageResult {
  number: number;
  width: number;
  height: number;
  /** no text layer: the page must be OCRed */
  needsOcr: boolean;
  /** nothing painted on the page (or only a white background): not OCRed */
  blank?: boolean;
  /** pixels of the largest image of a page without text (left undecoded), for the image pixel limit */
  imagePixels?: number;
  /** elements in reading order */
  elements: PageElement[];
  error?: string;
}

export interface OpenResult {
  numPages: number;
  /** the first pages, parsed by the worker that opened the document */
  pages: PageResult[];
  metadata: { title?: string; author?: string; creationDate?: string; [k: string]: unknown };
  /** the file ends as a PDF does (%%EOF near its end); false: it was cut short */
  complete: boolean;
}

export type WorkerRequest =
  | { id: number; type: 'open'; jobId: string; path: string; firstTo: number; pageLimit?: number }
  | { id: number; type: 'load'; jobId: string; path: string }
  | { id: number; type: 'pages'; jobId: string; path: string; from: number; to: number }
  | { id: number; type: 'render'; jobId: string; path: string; page: number; dpi: number; out: string; rotate?: number; maxPixels?: number; imagePixels?: number }
  | { id: number; type: 'release'; jobId: string };

export type WorkerResponse =
  | { id: number; ok: true; result: unknown }
  | { id: number; ok: false; error: { name: string; message: string } };

import type { BBox } from '@quire/core';

import type { TableElement } from '@quire/layout';

/** `figure`: text inside a picture (figures.ts), kept out of the reading flow */
export type TextElementType = 'paragraph' | 'list_item' | 'key_value' | 'caption' | 'figure';

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
  /**
   * A part of a block that reaches into the top or bottom edge of the page (layout.ts edgeParts): parts of
   * one group follow each other; those that are not page furniture are joined back into one element.
   */
  part?: { group: number; index: number; lines: string[]; stats: PartStats; mark: boolean };
  /** page furniture (a running head, footer or page number), found across the pages */
  furniture?: 'header' | 'footer';
}

/** Characters of a text part, bold, italic, and by font size (half points): to type the part joined back. */
export interface PartStats {
  chars: number;
  bold: number;
  italic: number;
  sizes: [number, number][];
}

export type PageElement = TextElement | TableElement;

/** One AcroForm field as read from a page's widget annotation (page coordinates: points, top-left origin). */
export interface FormField {
  /** fully qualified field name (parent.child) */
  name: string;
  type: 'text' | 'checkbox' | 'radio' | 'dropdown' | 'listbox' | 'button' | 'signature' | 'unknown';
  /** text: the text; checkbox: true/false; radio: the chosen option's export value or null; dropdown/listbox: the chosen option(s); null when empty */
  value: string | boolean | string[] | null;
  /** the choices of a radio group, dropdown or listbox */
  options?: string[];
  page: number;
  /** the field's widgets on the page (a ticked checkbox: the ticked widget; a radio group with a choice: the chosen button, where the mark shows) */
  bbox: { x: number; y: number; width: number; height: number };
  readOnly?: boolean;
  required?: boolean;
  /** every widget of the field on the page is hidden (not shown, not printed) */
  hidden?: boolean;
  /** font size of the field's text (points); absent when automatic */
  fontSize?: number;
}

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
  /** resolution of that image as placed on the page (its pixels per inch): a scan is drawn for OCR at no more than this */
  imageDpi?: number;
  /** elements in reading order */
  elements: PageElement[];
  /** the words of the text layer with their boxes, packed (packWords of @quire/core; evidence boxes of extracted values) */
  words?: string;
  /** AcroForm fields whose widgets are on this page */
  fields?: FormField[];
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
  | { id: number; type: 'preview'; jobId: string; path: string; page: number; dpi: number; maxPixels?: number }
  | { id: number; type: 'release'; jobId: string };

export type WorkerResponse =
  | { id: number; ok: true; result: unknown }
  | { id: number; ok: false; error: { name: string; message: string }; /** the worker cannot go on (PDFium aborted): it is replaced */ fatal?: boolean };

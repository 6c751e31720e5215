/**
 * Layout geometry shared by the readers that place text on pages (PDF pages, images through OCR): text items,
 * lines and boxes, ruling lines (vector or found in pixels), ruled grids as tables, OCR page layout, and the
 * line-level tests for list items and `Label: value` pairs.
 */
export { isListItem, isBulletOnly, parseKeyValue, joinLines, cleanText } from './text.js';
export { buildLines, itemsText, findRuledTables, mergeIntervals, clusterValues, unionBox, toBBox, median, width, height, vOverlap, hOverlap, itemBox, wordsOf } from './grid.js';
export type { TextItem, Rule, TableElement, Box, Line, GridTable } from './grid.js';
export { detectRules, scaleRules } from './rules.js';
export type { PixelImage } from './rules.js';
export { ocrLinesToBlocks, ocrWordsToPoints, scaleBox, layoutOcrPage, ocrFurnitureCandidates, markOcrFurniture } from './ocr-layout.js';
export type { OcrLineInput, OcrLayoutOptions, OcrElement } from './ocr-layout.js';
export { findFurniture, furnitureZone, furnitureKey, furnitureSide, findLineNumberGutter, FURNITURE_TOP, FURNITURE_BOTTOM } from './furniture.js';
export type { FurnitureCandidate, FurnitureZone, LineGutter } from './furniture.js';
export { pickBetterLines } from './agentic.js';
export type { PickedReading } from './agentic.js';

/**
 * Office file helpers shared by the readers: OOXML packages read from untrusted bytes (bounded zip through
 * @quire/core's ZipArchive, XML parts without a DTD, the main part and relationships), DrawingML charts,
 * and LibreOffice conversions.
 */
export { openPackage, partText, partBytes, assertNoDtd, mainPartPath, childElements, findElement, XmlScanError } from './ooxml.js';
export type { PackageOptions, ElementRange } from './ooxml.js';
export { parseChart, parseRels, relsOf } from './chart.js';
export type { ChartInfo } from './chart.js';
export { convertWithSoffice, sofficeAvailable, SofficeError } from './soffice.js';
export type { ConvertOptions, Converted } from './soffice.js';

/** Field names from printed labels. */
import { splitName } from './concepts.js';

/** snake_case name from a printed label: "Invoice No." → "invoice_no", "Total (incl. VAT)" → "total_incl_vat". */
export function snakeCase(label: string): string {
  const s = splitName(label)
    .normalize('NFKD')
    .replace(/[\u0300-\u036f]/g, '')
    .toLowerCase()
    .replace(/#/g, ' number ')
    .replace(/[^a-z0-9]+/g, '_')
    .replace(/^_+|_+$/g, '');
  return /^\d/.test(s) ? `field_${s}` : s || 'field';
}

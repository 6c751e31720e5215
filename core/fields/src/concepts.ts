/**
 * Field concepts: what common business fields are called on documents (a synonym table in several
 * languages), the normalised label tokens they are matched with, and the concept a field definition
 * stands for. Shared by the extractor (label matching) and the engine (schema suggestion, descriptions).
 */
import type { FieldDefinition } from '@quire/core';
import type { StringFormat } from './parse/value.js';
import { LEXICON, type LexiconEntry } from './lexicon.js';

export interface Token {
  t: string;
  start: number;
  end: number;
}

/** Abbreviations that mean "number" in labels ("Invoice No.", "Rechnungsnr.", "#"). */
const NUMBER_WORDS = new Set(['no', 'nr', 'num', 'nbr', 'nro', 'number', 'n', 'numero', 'nummer', 'nº', 'n°', '#']);
const STOP = new Set(['the', 'a', 'an', 'of', 'for', 'this', 'on', 'in', 'to', 'by', 'at', 'your', 'our', 'de', 'du', 'des', 'la', 'le', 'les', 'der', 'die', 'das', 'des', 'het', 'van', 'en', 'and', 'und', 'et', 'y', 'e', 'il', 'el', 'is', 'are', 'please']);

const fold = (s: string) => s.normalize('NFKD').replace(/[\u0300-\u036f]/g, '').toLowerCase();

/** Splits camelCase and snake_case names into words: "invoiceNumber" / "invoice_number" → "invoice number". */
export function splitName(name: string): string {
  return name
    .replace(/([a-z0-9])([A-Z])/g, '$1 $2')
    .replace(/([A-Z]+)([A-Z][a-z])/g, '$1 $2')
    .replace(/[_\-.]+/g, ' ')
    .trim();
}

/** Normalised word tokens with their offsets in `s`. "No."/"Nr."/"#" become "number". */
export function tokenize(s: string): Token[] {
  const out: Token[] = [];
  for (const m of s.matchAll(/[\p{L}\p{N}]+|#|№|n[º°]/gu)) {
    let t = fold(m[0]);
    if (NUMBER_WORDS.has(t) || m[0] === '№') t = 'number';
    out.push({ t, start: m.index!, end: m.index! + m[0].length });
  }
  return out;
}

export const words = (s: string): string[] => tokenize(splitName(s)).map((x) => x.t);
export const isStop = (t: string) => STOP.has(t);

export interface Concept {
  id: string;
  /** label phrases, first is the canonical one; a leading ~ marks a weak label (generic word, lower weight) */
  labels: string[];
  /** extra words that hint at the concept inside a field description */
  hints?: string[];
  type?: FieldDefinition['type'];
  format?: StringFormat;
  money?: boolean;
  /** where on a document the value usually sits (agentic region priors) */
  region?: 'header' | 'totals' | 'parties' | 'footer' | 'table';
  /** the value may continue on the following lines (addresses) */
  multiline?: boolean;
}

export const CONCEPTS: Concept[] = [
  { id: 'invoice_number', format: 'id', region: 'header', labels: ['invoice number', 'invoice no', 'invoice #', 'invoice id', 'invoice ref', 'inv no', 'bill number', 'bill no', 'receipt number', 'receipt no', 'document number', 'doc no', 'factuurnummer', 'factuur nummer', 'rechnungsnummer', 'rechnungsnr', 'rechnung nr', 'numero de facture', 'facture number', 'number facture', 'numero factura', 'factura number', 'fattura number', '~invoice'] },
  { id: 'date', type: 'date', region: 'header', labels: ['date', 'invoice date', 'issue date', 'date issued', 'issued on', 'issued', 'dated', 'billing date', 'bill date', 'document date', 'receipt date', 'transaction date', 'datum', 'rechnungsdatum', 'factuurdatum', 'belegdatum', 'date de facture', 'date facture', 'fecha', 'fecha de factura', 'data fattura'] },
  { id: 'due_date', type: 'date', region: 'header', labels: ['due date', 'payment due', 'payment due date', 'due by', 'due on', 'pay by', 'payable by', 'faelligkeitsdatum', 'falligkeitsdatum', 'fallig am', 'zahlbar bis', 'vervaldatum', 'date d echeance', 'echeance', 'fecha de vencimiento', 'vencimiento', 'scadenza'] },
  { id: 'total', type: 'number', money: true, region: 'totals', labels: ['total', 'total amount', 'amount due', 'total amount due', 'grand total', 'balance due', 'total due', 'amount payable', 'total payable', 'invoice total', 'total to pay', 'net payable', 'total incl tax', 'total including tax', 'total incl vat', 'total for this invoice', 'total invoice', 'rounded total', 'total rounded', 'gesamtbetrag', 'gesamtsumme', 'rechnungsbetrag', 'endbetrag', 'zu zahlen', 'totaal', 'te betalen', 'totaalbedrag', 'montant total', 'total ttc', 'net a payer', 'importe total', 'totale', '~amount', '~balance'], hints: ['total', 'amount due', 'grand total', 'payable'] },
  { id: 'subtotal', type: 'number', money: true, region: 'totals', labels: ['subtotal', 'sub total', 'net amount', 'net total', 'total net', 'total excl tax', 'total excluding tax', 'total excl vat', 'total before tax', 'amount before tax', 'total ht', 'montant ht', 'nettobetrag', 'netto', 'zwischensumme', 'summe netto', 'subtotaal', 'exclusief btw', 'excl btw', 'totaal excl btw', 'base imponible', 'imponibile', 'amount untaxed', 'untaxed amount'] },
  { id: 'tax', type: 'number', money: true, region: 'totals', labels: ['tax', 'vat', 'tax amount', 'vat amount', 'sales tax', 'gst', 'hst', '~pst', 'tva', 'mwst', '~ust', 'btw', 'mehrwertsteuer', 'umsatzsteuer', 'iva', 'total tax', 'total vat', 'montant tva', 'btw bedrag'] },
  { id: 'tax_rate', type: 'number', region: 'totals', labels: ['tax rate', 'vat rate', 'tax percent', 'vat percent', 'btw tarief', 'steuersatz', 'taux de tva', '~tax', '~vat', '~btw', '~mwst', '~tva', '~gst'] },
  { id: 'discount', type: 'number', money: true, region: 'totals', labels: ['discount', 'rebate', 'rabatt', 'korting', 'remise', 'descuento', 'sconto'] },
  { id: 'shipping', type: 'number', money: true, region: 'totals', labels: ['shipping', 'shipping cost', 'freight', '~delivery', 'delivery charge', 'postage', 'versandkosten', 'verzendkosten', 'frais de port', 'envio'] },
  { id: 'vendor', format: 'company', region: 'header', labels: ['vendor', 'vendor name', 'seller', 'supplier', '~from', '~company', 'company name', 'issuer', 'merchant', 'sold by', 'service provider', 'payee', '~store', '~shop', '~provider', 'lieferant', 'verkaufer', 'leverancier', 'fournisseur', 'proveedor', 'fornitore'], hints: ['vendor', 'seller', 'supplier', 'issuer', 'merchant', 'company'] },
  { id: 'customer', format: 'company', region: 'parties', labels: ['customer', 'customer name', 'bill to', 'billed to', 'client', 'client name', 'buyer', 'sold to', 'invoice to', 'recipient', 'guest name', 'kunde', 'rechnungsempfanger', 'klant', 'client name', 'destinataire', 'cliente'], hints: ['customer', 'client', 'buyer', 'bill to'] },
  { id: 'customer_number', format: 'id', region: 'header', labels: ['customer number', 'customer no', 'customer id', 'client number', 'client id', 'account number', 'account no', 'account id', 'kundennummer', 'kundennr', 'klantnummer', 'numero client'] },
  { id: 'order_number', format: 'id', region: 'header', labels: ['order number', 'order no', 'order id', 'purchase order', 'po number', 'po no', 'p o number', 'ordernummer', 'bestellnummer', 'auftragsnummer', 'numero de commande', 'booking id', 'booking number', 'reservation number'] },
  { id: 'order_date', type: 'date', region: 'header', labels: ['order date', 'orderdatum', 'bestelldatum', 'auftragsdatum', 'date de commande'] },
  { id: 'currency', format: 'currency', labels: ['currency', 'currency code', 'wahrung', 'valuta', 'devise', 'moneda'] },
  { id: 'iban', format: 'iban', region: 'footer', labels: ['iban', 'iban number', 'bank account', 'account iban'] },
  { id: 'bic', format: 'bic', region: 'footer', labels: ['bic', 'swift', 'swift code', 'bic swift', 'swift bic', 'bic code'] },
  { id: 'vat_id', format: 'taxid', region: 'footer', labels: ['vat number', 'vat id', 'vat reg no', 'vat registration number', 'vat no', 'tax id', 'tax number', 'tax identification number', 'ust id', 'ustid', 'ust idnr', 'umsatzsteuer id', 'steuernummer', 'btw nummer', 'btw nr', '~btw', 'tva intracommunautaire', 'numero de tva', 'gstin', 'gst number', 'gst reg no', '~tin', '~ein', '~nif', '~cif', 'partita iva'] },
  { id: 'address', multiline: true, region: 'parties', labels: ['address', 'street address', 'billing address', 'bill to address', 'postal address', 'mailing address', 'adresse', 'anschrift', 'adres', 'direccion', 'indirizzo'] },
  { id: 'email', format: 'email', labels: ['email', 'e mail', 'email address', '~mail', 'courriel'] },
  { id: 'phone', format: 'phone', labels: ['phone', 'telephone', 'tel', 'phone number', '~mobile', '~cell', 'contact number', 'telefon', 'telefoon', 'telefono', 'tel no'] },
  { id: 'website', format: 'url', labels: ['website', '~web', 'url', '~site', 'web site', 'homepage', '~internet', 'im internet'] },
  { id: 'payment_terms', labels: ['payment terms', '~terms', 'terms of payment', 'zahlungsbedingungen', 'betalingsvoorwaarden', 'conditions de paiement'] },
  { id: 'payment_method', labels: ['payment method', 'payment mode', 'paid by', 'paid via', 'payment type', 'method of payment', 'zahlungsart', 'betaalmethode', 'mode de paiement', 'forma de pago'] },
  { id: 'reference', labels: ['reference', '~ref', 'our reference', 'your reference', 'referenz', 'referentie', 'referencia'] },
  { id: 'description', labels: ['description', 'item', 'item description', '~product', '~service', '~details', 'article', 'artikel', 'beschreibung', 'bezeichnung', 'omschrijving', 'designation', 'descripcion', '~name'] },
  { id: 'quantity', type: 'number', labels: ['quantity', 'qty', 'quantite', 'menge', 'anzahl', 'aantal', 'cantidad', 'quantita', '~units', '~pcs', '~hours', '~hrs'] },
  { id: 'unit_price', type: 'number', money: true, labels: ['unit price', 'price', 'rate', 'price per unit', 'unit cost', 'price each', 'einzelpreis', 'vk preis', 'preis', 'prijs per stuk', 'prijs', 'prix unitaire', 'prix', 'precio unitario', 'prezzo'] },
  { id: 'line_total', type: 'number', money: true, labels: ['amount', 'line total', '~total', 'line amount', '~net', 'betrag', 'gesamtpreis', 'zeilenbetrag', 'bedrag', 'prijs incl btw', 'montant', 'importe', 'importo', '~price subtotal'] },
  { id: 'name', labels: ['name', 'full name', 'applicant name', 'candidate name', 'nom', 'naam', 'nombre', 'nome'] },
  { id: 'effective_date', type: 'date', labels: ['effective date', 'commencement date', 'start date', 'date of agreement', 'agreement date'] },
  { id: 'end_date', type: 'date', labels: ['end date', 'expiration date', 'expiry date', 'termination date', 'valid until', 'valid through'] },
  { id: 'signature_date', type: 'date', labels: ['signature date', 'date signed', 'signed on', 'date of signature'] },
  // the registered company behind a shop or brand ("Owned by … Sdn Bhd"): never the merchant (labels in other languages: the lexicon)
  { id: 'legal_entity', format: 'company', region: 'header', labels: ['legal entity', 'legal name', 'registered name', 'registered company', 'owned by', 'operated by'], hints: ['legal entity', 'owned by', 'operated by', 'registered company'] },
];

const CONCEPT_BY_ID = new Map(CONCEPTS.map((c) => [c.id, c]));
export const concept = (id: string | undefined) => (id ? CONCEPT_BY_ID.get(id) : undefined);

const phraseKey = (s: string) => words(s.replace(/^~/, '')).join(' ');

// the lexicon's labels join the concept each entry names (a phrase some concept already uses stays where it is)
{
  const known = new Set(CONCEPTS.flatMap((c) => c.labels.map(phraseKey)));
  for (const e of LEXICON) {
    const c = e.concept ? CONCEPT_BY_ID.get(e.concept) : undefined;
    if (!c) continue;
    for (const l of Object.values(e.labels).flat()) {
      const k = phraseKey(l);
      if (!k || known.has(k)) continue;
      known.add(k);
      c.labels.push(l);
    }
  }
}

/** Lexicon labels as normalised tokens, by their first token. */
const LEXICON_BY_FIRST = new Map<string, { tokens: string[]; entry: LexiconEntry }[]>();
for (const e of LEXICON.filter((x) => !x.scope))
  for (const l of Object.values(e.labels).flat()) {
    const tokens = words(l);
    if (tokens.length) LEXICON_BY_FIRST.set(tokens[0]!, [...(LEXICON_BY_FIRST.get(tokens[0]!) ?? []), { tokens, entry: e }]);
  }

/** The lexicon entries whose labels a token sequence (words() / tokenize()) holds, in the order they occur. */
export function lexiconIn(tokens: readonly string[]): LexiconEntry[] {
  const found: LexiconEntry[] = [];
  for (let i = 0; i < tokens.length; i++)
    for (const l of LEXICON_BY_FIRST.get(tokens[i]!) ?? []) if (!found.includes(l.entry) && l.tokens.every((t, j) => tokens[i + j] === t)) found.push(l.entry);
  return found;
}
/** label phrase → concept ids that use it */
const PHRASE_INDEX = new Map<string, string[]>();
for (const c of CONCEPTS) {
  for (const l of c.labels) {
    const k = phraseKey(l);
    PHRASE_INDEX.set(k, [...(PHRASE_INDEX.get(k) ?? []), c.id]);
  }
}

const CONCEPT_TOKENS = new Map(CONCEPTS.map((c) => [c.id, c.labels.map((l) => phraseKey(l).split(' '))]));

/** Concepts whose label list holds exactly this phrase ("Due Date" → due_date). */
export function conceptsOfPhrase(phrase: string): string[] {
  return PHRASE_INDEX.get(phraseKey(phrase)) ?? [];
}

/** Concepts whose label list holds exactly this phrase, given as normalised tokens (from tokenize / words). */
export function conceptsOfWords(tokens: readonly string[]): string[] {
  return PHRASE_INDEX.get(tokens.join(' ')) ?? [];
}

/** Words that qualify a name without changing what it is ("total_amount", "invoice_number_value"). */
const GENERIC = new Set(['amount', 'value', 'number', 'name', 'id', 'text', 'field', 'info', 'details', 'data', 'the', 'of', 'printed', 'document']);

/** The concept a field stands for: by its name first, then by its description. */
export function conceptOf(field: FieldDefinition): Concept | undefined {
  const name = phraseKey(field.name);
  const direct = PHRASE_INDEX.get(name);
  if (direct?.length) return CONCEPT_BY_ID.get(direct[0]!);
  // "invoice_total", "total_amount_due": a concept label contained in the name (longest wins)
  let best: { c: Concept; len: number; start: number } | undefined;
  const nameToks = name.split(' ');
  for (const c of CONCEPTS) {
    for (const lt of CONCEPT_TOKENS.get(c.id)!) {
      if (lt.length < 1 || lt.length > nameToks.length) continue;
      for (let i = 0; i + lt.length <= nameToks.length; i++) {
        if (lt.every((t, j) => nameToks[i + j] === t) && (!best || lt.length > best.len)) best = { c, len: lt.length, start: i };
      }
    }
  }
  if (best && best.len === nameToks.length) return best.c;
  if (best && nameToks.every((t, i) => (i >= best!.start && i < best!.start + best!.len) || GENERIC.has(t))) return best.c;
  if (field.description) {
    const d = ` ${words(field.description).join(' ')} `;
    let hit: { c: Concept; len: number } | undefined;
    for (const c of CONCEPTS) {
      for (const l of [...c.labels, ...(c.hints ?? [])]) {
        const k = phraseKey(l);
        if (k.length > 2 && d.includes(` ${k} `) && (!hit || k.length > hit.len)) hit = { c, len: k.length };
      }
    }
    if (hit) return hit.c;
  }
  return undefined;
}

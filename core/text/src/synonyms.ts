/**
 * Words a question may use for what a document says otherwise ("who argued for …" / "on behalf of …",
 * "how much does it cost" / "price", "when was it issued" / "invoice date"). A small, curated list of the
 * phrasing of questions, not a thesaurus: each group holds words that, in a question about a document, ask
 * for the same thing. Looked up by stem (this package's `stem`), so every inflection of a word finds its group.
 */
import { stem } from './stem.js';

// prettier-ignore
const GROUPS: string[][] = [
  // (with the amount of an invoice as Dutch, German, French and Spanish invoices label it)
  ['cost', 'price', 'amount', 'total', 'charge', 'fee', 'pay', 'paid', 'payment', 'due', 'owe', 'payable', 'sum', 'totaal', 'bedrag', 'gesamtbetrag', 'betrag', 'montant', 'importe', 'preis', 'prijs', 'prix', 'precio'],
  // the whole of an invoice, as a question may say it
  ['total', 'altogether', 'overall', 'totaal', 'gesamt', 'gesamtbetrag', 'summe'],
  ['invoice', 'bill', 'receipt', 'statement', 'factuur', 'rechnung', 'facture', 'factura'],
  // the date of an invoice, as Dutch, German, French and Spanish invoices label it
  ['date', 'dated', 'issue', 'day', 'datum', 'factuurdatum', 'rechnungsdatum', 'fecha'],
  ['born', 'birth'],
  ['die', 'died', 'death'],
  ['author', 'wrote', 'write', 'written', 'writer'],
  ['name', 'named', 'call', 'called', 'known', 'title', 'naam', 'nom', 'nombre'],
  ['locate', 'location', 'based', 'address', 'headquarters', 'office', 'situated', 'seat', 'adresse', 'anschrift', 'adres', 'direccion'],
  ['found', 'founded', 'establish', 'create'],
  ['invent', 'inventor', 'patent', 'devise'],
  ['buy', 'bought', 'purchase', 'acquire', 'sign', 'signed'],
  ['join', 'connect', 'link', 'attach'],
  ['send', 'sent', 'submit', 'deliver', 'file', 'filed'],
  ['begin', 'began', 'start', 'commence'],
  ['end', 'finish', 'conclude'],
  ['leave', 'left', 'depart', 'departure', 'checkout'],
  ['arrive', 'arrival', 'checkin'],
  ['guest', 'visitor', 'customer', 'client', 'buyer', 'kunde', 'klant', 'cliente'],
  // "how many people": the people a document counts
  ['people', 'person', 'guest', 'attendee', 'participant', 'passenger'],
  ['seller', 'vendor', 'supplier', 'provider', 'issuer'],
  ['company', 'firm', 'business', 'organisation', 'organization', 'corporation', 'employer'],
  ['argue', 'argued', 'argument', 'behalf', 'represent', 'counsel'],
  ['lawyer', 'attorney', 'counsel', 'legal', 'law'],
  ['percentage', 'percent', 'share', 'rate', 'proportion'],
  ['increase', 'rise', 'rose', 'grow', 'grew', 'climb'],
  // "how much did PetCare sell": the Sales column of a business's figures
  ['sell', 'sold', 'sale', 'sales'],
  ['decrease', 'fall', 'fell', 'drop', 'decline'],
  ['quick', 'quicker', 'fast', 'faster', 'speed'],
  ['make', 'manufacture', 'produce'],
  ['use', 'employ', 'utilise', 'utilize'],
  ['need', 'require', 'required'],
  ['male', 'man', 'men'],
  ['female', 'woman', 'women'],
  // what "how tall / long / far / heavy / wide / deep" asks for, as a document names it
  ['tall', 'height'],
  ['long', 'length'],
  ['far', 'distance'],
  ['heavy', 'weight', 'weigh'],
  ['wide', 'width'],
  ['deep', 'depth'],
  ['phone', 'telephone', 'tel', 'telefon', 'telefoon', 'telefono'],
  // words of forms, invoices and letters as German, Dutch, French and Spanish documents write them (diacritics removed, as terms are)
  ['year', 'annual', 'yearly', 'jahr', 'jahrlich', 'jaar', 'jaarlijks', 'annee', 'annuel', 'anual'],
  ['month', 'monthly', 'monat', 'monatlich', 'maand', 'mois', 'mensuel', 'mensual'],
  ['member', 'membership', 'mitglied', 'mitgliedschaft', 'lidmaatschap', 'membre', 'adhesion', 'miembro'],
  ['account', 'konto', 'rekening', 'compte', 'cuenta'],
  ['order', 'bestellung', 'auftrag', 'bestelling', 'commande', 'pedido'],
  ['quantity', 'qty', 'menge', 'anzahl', 'aantal', 'quantite', 'cantidad'],
  ['tax', 'steuer', 'belasting', 'impot', 'taxe', 'impuesto'],
  ['city', 'town', 'stadt', 'stad', 'ville', 'ciudad'],
  // value-added tax, as Dutch, German, French and Spanish invoices abbreviate it
  ['vat', 'btw', 'mwst', 'ust', 'tva', 'iva'],
  ['email', 'mail'],
  ['serve', 'server', 'waiter', 'wait'],
  ['dine', 'eat', 'meal', 'dinner', 'lunch'],
  ['release', 'launch', 'introduce', 'publish', 'debut'],
  ['favour', 'favor', 'popular', 'prefer', 'favourite', 'favorite'],
  ['disprove', 'debunk', 'refute'],
  ['beat', 'outperform', 'exceed', 'surpass'],
  ['employee', 'staff', 'worker'],
  ['country', 'nation'],
  ['processor', 'cpu', 'chip'],
  ['picture', 'image', 'photo', 'figure'],
];

/** For each stem, the words of its groups as written (other than those of the stem itself): to phrase a search otherwise. */
const WORDS: ReadonlyMap<string, readonly string[]> = (() => {
  const m = new Map<string, Set<string>>();
  for (const g of GROUPS)
    for (const w of g) {
      const set = m.get(stem(w)) ?? new Set<string>();
      for (const o of g) if (stem(o) !== stem(w)) set.add(o);
      m.set(stem(w), set);
    }
  return new Map([...m].map(([k, v]) => [k, [...v]]));
})();

const INDEX: ReadonlyMap<string, readonly string[]> = (() => {
  const m = new Map<string, Set<string>>();
  for (const g of GROUPS) {
    const stems = [...new Set(g.map((w) => stem(w)))];
    for (const s of stems) {
      const set = m.get(s) ?? new Set<string>();
      for (const o of stems) if (o !== s) set.add(o);
      m.set(s, set);
    }
  }
  return new Map([...m].map(([k, v]) => [k, [...v]]));
})();

/** Stems that a question may use for `stemmed` (a stem of this package's `stem`), without itself; [] when none. */
export function synonymsOf(stemmed: string): readonly string[] {
  return INDEX.get(stemmed) ?? [];
}

/** Words (as written, not stems) that a question may use for `stemmed`, without its own; [] when none. */
export function synonymWordsOf(stemmed: string): readonly string[] {
  return WORDS.get(stemmed) ?? [];
}

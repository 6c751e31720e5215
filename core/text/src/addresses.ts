/**
 * The town of a postal address, as letterheads, footers and forms print it next to its postcode: "D-63571 Gelnhausen",
 * "3012 CN Rotterdam", "2501 Biel", "Las Vegas, NV 89118", "Gurgaon -122001". A town is found only with its postcode.
 */

export interface AddressTown {
  town: string;
  postcode: string;
  /** where the postcode or the town starts in the text, whichever is first, and where the match ends */
  at: number;
  end: number;
}

const TOWN = String.raw`(\p{Lu}[\p{Ll}\p{M}'’.-]+(?:[ -](?:am|an|der|de|la|le|sur|upon|on|im|bei|\p{Lu}[\p{Ll}\p{M}'’.-]+)){0,3})`;
/** postcode, then town: "D-63571 Gelnhausen", "3012 CN Rotterdam", "CH-2501 Biel", "75008 Paris", "SW1A 1AA London" is not read */
const POSTCODE_TOWN = new RegExp(String.raw`(?<![\p{L}\p{N}.,/-])((?:[A-Z]{1,2}-)?\d{4,5}(?: ?[A-Z]{2}(?![\p{L}]))?)\s*` + TOWN + String.raw`(?![\p{L}\p{N}])`, 'gu');
/** town, then a US state and ZIP code: "Las Vegas, NV 89118" */
const TOWN_STATE_ZIP = new RegExp(TOWN + String.raw`,\s*([A-Z]{2})\s+(\d{5}(?:-\d{4})?)(?![\p{N}])`, 'gu');
/** town, then an Indian PIN code: "Gurgaon -122001", "Chennai - 600 017" */
const TOWN_PIN = new RegExp(TOWN + String.raw`\s*[-–]\s*(\d{3}\s?\d{3})(?![\p{N}])`, 'gu');

/** words a postcode's neighbour may be that are no town */
const NOT_TOWN = /^(?:City|Qty|Quantity|Amount|Price|Item|Code|Date|Time|Tel|Fax|Phone|Telefon|Email|E-mail|Mail|Web|Www|Fon|Ust|Vat|Iban|Bic|Box|Postfach|Bp|Cedex|Nr|No|Str|Page|Seite|Total|Euro|Eur|Usd|Chf|Jan|Feb|Mar|Apr|May|Jun|Jul|Aug|Sep|Oct|Nov|Dec|January|February|March|April|June|July|August|September|October|November|December)\.?$/i;

/** words of a street, not of a town ("6480 Cameron Street", "Rue du Lac", "Terry Ave North") */
const STREET = /^(?:street|st|str|straße|strasse|road|rd|avenue|ave|av|boulevard|blvd|lane|ln|drive|dr|way|place|pl|square|sq|suite|ste|floor|rue|chemin|via|weg|gasse|platz|allee|ring|north|south|east|west|building|bldg|resort|hotel|box)\.?$/i;
/** countries as addresses print them after the town ("3012 CN Rotterdam Nederland") */
const COUNTRY = /^(?:nederland|netherlands|deutschland|germany|österreich|austria|schweiz|suisse|svizzera|switzerland|france|belgique|belgië|belgium|italia|italy|españa|spain|luxembourg|danmark|sverige|norge|polska|usa|india|malaysia|singapore|uk|england)$/i;

/**
 * The town's own words: a street's words end nothing (null), a country and the words a sentence goes on with after it are
 * dropped ("Biel Additional information", "Rorschach Payable by"). `rest` is the text after the match.
 */
function townWords(town: string, rest: string): string | null {
  const ws = town.replace(/[.,]+$/u, '').trim().split(/\s+/);
  if (ws.some((w) => STREET.test(w))) return null;
  // (a sentence goes on after the last word: that word is its start; then a country)
  if (ws.length > 1 && /^\s+\p{Ll}/u.test(rest)) ws.pop();
  while (ws.length > 1 && COUNTRY.test(ws.at(-1)!)) ws.pop();
  const t = ws.join(' ');
  // (a town ends its part of the line: the end of the line, a mark, a country, or the next field's digits)
  return t.length >= 3 && /^\p{Lu}\p{Ll}/u.test(t) && !NOT_TOWN.test(ws[0]!) ? t : null;
}

/** Every town printed with its postcode in a text, in order. */
export function townsIn(text: string): AddressTown[] {
  const out: AddressTown[] = [];
  const add = (town: string | null, postcode: string, at: number, end: number) => {
    if (town) out.push({ town, postcode, at, end });
  };
  for (const m of text.matchAll(POSTCODE_TOWN)) {
    // (a year or an amount before a capitalised word is no postcode: "2019 Annual Report", "1000 Euro")
    if (/^(?:19|20)\d\d$/.test(m[1]!)) continue;
    const rest = text.slice(m.index! + m[0].length);
    // (the town ends its part of the line)
    // (or a sentence goes on after a word of capitals the town is followed by: "2501 Biel Additional information")
    if (!/^\s*(?:$|\n|[|,;·•–—)(]|\s\p{Lu}|\s\d|\s(?:www\.|https?:))/u.test(rest) && !(/\s/u.test(m[2]!) && /^\s+\p{Ll}/u.test(rest))) continue;
    add(townWords(m[2]!, rest), m[1]!, m.index!, m.index! + m[0].length);
  }
  for (const m of text.matchAll(TOWN_STATE_ZIP)) {
    // (the words right before the comma: "Terry Ave North Seattle, WA" is Seattle)
    const ws = m[1]!.split(/\s+/);
    const cut = ws.map((w, i) => (STREET.test(w) ? i + 1 : 0)).reduce((a, b) => Math.max(a, b), 0);
    add(townWords(ws.slice(cut).join(' '), ''), `${m[2]} ${m[3]}`, m.index!, m.index! + m[0].length);
  }
  for (const m of text.matchAll(TOWN_PIN)) add(townWords(m[1]!, ''), m[2]!, m.index!, m.index! + m[0].length);
  return out.sort((a, b) => a.at - b.at);
}

/** Whether a question asks for the town or city of something ("In which city is Coolblue located?", "Where is X based?"). */
export function townAsked(question: string): boolean {
  const q = question.trim();
  return /^(?:in|at)\s+(?:which|what)\s+(?:city|town|municipality)\b/iu.test(q) || /^(?:which|what)\s+(?:city|town)\s+(?:is|are|was|does|do|did|has|have)\b/iu.test(q) || /^where\s+(?:is|are|was|were)\b.*\b(?:based|located|headquartered|situated|registered)\s*\??$/iu.test(q) || /^where\s+(?:is|are)\b.*\bheadquarters\s*\??$/iu.test(q);
}

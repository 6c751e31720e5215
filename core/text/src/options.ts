/**
 * Groups of options marked by checkboxes, as a parsed text prints them: on one line with a box before each option
 * ("Choose as many as you like: ☒ Orange juice ☐ Tea ☒ Coffee"), or after each ("Large accelerated filer ☐ Smaller
 * reporting company ☑"), or one box a line ("☒ Design" / "☐ Documentation"), a table's cell being a line of its own.
 * Round marks (● ○) are left out: lists use them as bullets.
 */

export interface MarkedOption {
  label: string;
  checked: boolean;
}

export interface OptionGroup {
  options: MarkedOption[];
  /** the words before the boxes on their line ("Choose as many as you like:"), or the line above a list of boxes */
  prompt: string;
  /** up to two lines above the group without boxes (a table's title, a heading) */
  context: string;
}

const BOX = /\[\s*[xX✓✔]\s*\]|\[\s*\]|[☒☑✓✔■▣⊠☐□◻❏]/gu;
const checkedBox = (g: string) => (g.startsWith('[') ? !/^\[\s*\]$/.test(g) : '☒☑✓✔■▣⊠'.includes(g));
const hasLetters = (s: string) => /\p{L}/u.test(s);
const clean = (s: string) => s.replace(/\s+/g, ' ').replace(/^[\s:;,.|-]+|[\s:;,|-]+$/gu, '').trim();

/** The options of one line: the boxes and the labels next to them, or null when the line has no box with a label. */
function lineOptions(line: string): { options: MarkedOption[]; prompt: string; leading: boolean } | null {
  const marks = [...line.matchAll(BOX)];
  if (!marks.length) return null;
  const after = line.slice(marks.at(-1)!.index! + marks.at(-1)![0].length);
  // (a label after the last box: each box is before its label; else each is after its label)
  const leading = hasLetters(after);
  const options: MarkedOption[] = [];
  let prompt = '';
  marks.forEach((m, i) => {
    const end = m.index! + m[0].length;
    // (the first label before its box ends a sentence that asks: "… the Act. Yes ☐" is "Yes")
    const label = leading ? line.slice(end, marks[i + 1]?.index ?? line.length) : line.slice(i ? marks[i - 1]!.index! + marks[i - 1]![0].length : 0, m.index!).split(/[.:?!]\s+/u).pop()!;
    if (i === 0) prompt = clean(leading ? line.slice(0, m.index!) : line.slice(0, m.index! - label.length));
    if (hasLetters(label)) options.push({ label: clean(label), checked: checkedBox(m[0]) });
  });
  return options.length ? { options, prompt, leading } : null;
}

/** Every group of marked options in a text, in order. */
export function optionGroups(text: string): OptionGroup[] {
  // (a table's row: each cell a line of its own)
  const lines = text.split('\n').flatMap((l) => (/^\s*\|.*\|\s*$/.test(l) ? l.split('|').slice(1, -1) : [l])).map((l) => l.trim());
  const groups: OptionGroup[] = [];
  const plain: string[] = [];
  let list: OptionGroup | null = null;
  for (const line of lines) {
    if (!line || /^-{3,}$/.test(line)) continue;
    const found = lineOptions(line);
    if (!found) {
      plain.push(line);
      list = null;
      continue;
    }
    const context = plain.slice(-2).join(' ');
    // one box at the start of the line: a list of such lines is one group, the line above it its prompt
    if (found.options.length === 1 && found.leading && !found.prompt) {
      if (!list) {
        list = { options: [], prompt: plain.at(-1) ?? '', context: plain.slice(-3, -1).join(' ') };
        groups.push(list);
      }
      list.options.push(found.options[0]!);
      continue;
    }
    list = null;
    if (found.options.length >= 2) groups.push({ options: found.options, prompt: found.prompt, context });
  }
  return groups.filter((g) => g.options.length >= 2);
}

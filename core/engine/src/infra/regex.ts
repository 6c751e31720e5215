/**
 * The regular expressions of workflow expressions (JSONata's /pattern/flags) run on RE2 (re2js, a port of
 * RE2 in JavaScript): matching takes time linear in the text whatever the pattern, so /^(a+)+$/ cannot
 * backtrack for seconds. A pattern RE2 does not take (backreferences, lookahead, lookbehind) is refused with
 * VALIDATION_ERROR naming it: when the workflow is saved (checkRegexes) and, should one get through, when it
 * runs.
 */
import { RE2JS } from 're2js';
import { errors } from '@quire/core/isolate';

/** `\uXXXX` (JavaScript) as `\x{XXXX}` (RE2); every other escape as it is. */
function toRe2Syntax(source: string): string {
  let out = '';
  for (let i = 0; i < source.length; i++) {
    const c = source[i]!;
    if (c !== '\\') {
      out += c;
      continue;
    }
    const hex = /^u([0-9a-fA-F]{4})/.exec(source.slice(i + 1, i + 6));
    if (hex) {
      out += `\\x{${hex[1]}}`;
      i += 5;
    } else {
      out += source.slice(i, i + 2);
      i++;
    }
  }
  return out;
}

/** A JavaScript pattern and flags (i, m) compiled by RE2; VALIDATION_ERROR naming the pattern when RE2 does not take it. */
export function compileRe2(source: string, flags: string): RE2JS {
  try {
    return RE2JS.compile(toRe2Syntax(source), (flags.includes('i') ? RE2JS.CASE_INSENSITIVE : 0) | (flags.includes('m') ? RE2JS.MULTILINE : 0));
  } catch (e) {
    throw errors.validation(`The regular expression /${source}/ is not supported: ${(e as Error).message} (patterns run on a linear-time engine: no backreferences, lookahead or lookbehind)`, { pattern: source });
  }
}

/**
 * The RegexEngine JSONata is given: constructed with the RegExp its parser made, then used as a global
 * RegExp (lastIndex set, exec called), answering like one (the match and its groups, index, lastIndex).
 */
export class Re2RegexEngine {
  lastIndex = 0;
  private readonly re: RE2JS;
  private matcher: ReturnType<RE2JS['matcher']> | null = null;
  private text: string | null = null;

  constructor(pattern: RegExp) {
    this.re = compileRe2(pattern.source, pattern.flags);
  }

  exec(text: string): RegExpExecArray | null {
    if (this.text !== text || !this.matcher) {
      this.matcher = this.re.matcher(text);
      this.text = text;
    }
    const m = this.matcher;
    if (this.lastIndex > text.length || !m.find(this.lastIndex)) {
      this.lastIndex = 0;
      return null;
    }
    const found: (string | undefined)[] = [];
    for (let g = 0; g <= m.groupCount(); g++) found.push(m.group(g) ?? undefined);
    this.lastIndex = m.end();
    return Object.assign(found, { index: m.start(), input: text }) as unknown as RegExpExecArray;
  }
}

/** Every regex literal of a parsed JSONata expression (its AST), compiled by RE2: a pattern it refuses fails here. */
export function checkRegexes(ast: unknown, seen = new Set<unknown>()): void {
  if (!ast || typeof ast !== 'object' || seen.has(ast)) return;
  seen.add(ast);
  if (ast instanceof RegExp) {
    compileRe2(ast.source, ast.flags);
    return;
  }
  for (const v of Object.values(ast)) checkRegexes(v, seen);
}

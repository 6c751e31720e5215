/** The JSON object in a model's content: as is, without a Markdown code fence, or the outermost {...}; else null. */
export function parseJsonObject(content: string): Record<string, any> | null {
  const t = content.trim().replace(/^```(?:json)?\s*/i, '').replace(/\s*```$/, '');
  for (const candidate of [t, /\{[\s\S]*\}/.exec(t)?.[0]]) {
    if (!candidate) continue;
    try {
      const j = JSON.parse(candidate);
      if (j && typeof j === 'object' && !Array.isArray(j)) return j as Record<string, any>;
    } catch {
      /* next */
    }
  }
  return null;
}

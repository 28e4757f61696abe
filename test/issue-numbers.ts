/**
 * The team's rule "comments say what and why, never which issue", made checkable. A comment, a test
 * title or a message that names an issue ("issue N", "Issues #N", N a number) sends the next reader to the
 * tracker for what the text could have said itself: what is checked and why. An upstream bug is cited
 * by its address (`github.com/owner/repo/issues/123`), which the pattern does not match.
 */

/** An issue number: "issue", or "issues", then a number, with or without "#"; any case. */
export const ISSUE_NUMBER = /\bissues?\s+#?\d+/i;

/** Where a text names an issue: its file, its line (1-based) and that line, trimmed. */
export interface IssueMention {
  file: string;
  line: number;
  text: string;
}

/**
 * Every line of `text` (the content of `file`) that names an issue. The whole line is searched, so a
 * comment, a string, a template literal and a YAML comment are all covered; code itself never holds
 * the pattern (an identifier has no space in it).
 */
export function issueMentions(file: string, text: string): IssueMention[] {
  const mentions: IssueMention[] = [];
  text.split(/\r?\n/).forEach((content, index) => {
    if (ISSUE_NUMBER.test(content)) mentions.push({ file, line: index + 1, text: content.trim() });
  });
  return mentions;
}

/** How a mention is reported: `file:line: text`. */
export function describeMention(mention: IssueMention): string {
  return `${mention.file}:${mention.line}: ${mention.text}`;
}

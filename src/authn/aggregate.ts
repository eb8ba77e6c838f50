/**
 * Joins failure messages the way the original's utilerrors.NewAggregate
 * prints them: one message as is, several as `[a, b]` without repeats.
 */
export function aggregateMessages(messages: readonly string[]): string {
  const unique = [...new Set(messages)];
  if (unique.length <= 1) return unique[0] ?? '';
  return `[${unique.join(', ')}]`;
}

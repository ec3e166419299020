/** Text the command writes (to a terminal or a file) ends with a newline, as text files and terminals expect. */
export function endLine(text: string): string {
  return text.endsWith('\n') ? text : `${text}\n`;
}

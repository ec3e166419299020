/** Captures what a command prints through console.log and console.error (restore with vi.restoreAllMocks). */
import { vi } from 'vitest';

export function captureConsole(): { out: string[]; err: string[] } {
  const out: string[] = [];
  const err: string[] = [];
  vi.spyOn(console, 'log').mockImplementation((...args: unknown[]) => void out.push(args.join(' ')));
  vi.spyOn(console, 'error').mockImplementation((...args: unknown[]) => void err.push(args.join(' ')));
  return { out, err };
}

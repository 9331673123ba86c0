import { createInterface } from 'node:readline/promises';
import { terminal } from '../terminal.js';
import { invocation } from '../invocation.js';

/** A person at a terminal on both ends: only then does kbsync ask questions instead of failing with a hint. */
export const isInteractive = (): boolean => Boolean(invocation().stdin.isTTY && invocation().stdout.isTTY);

/** Asks one question on the terminal; the answer is trimmed. */
export async function ask(question: string): Promise<string> {
  const rl = createInterface({ input: invocation().stdin, output: invocation().stdout });
  try {
    return (await rl.question(question)).trim();
  } finally {
    rl.close();
  }
}

/** Asks for a number from 1 to `count` until one is given; returns its index (0-based). */
export async function choose(question: string, count: number): Promise<number> {
  for (;;) {
    const answer = await ask(question);
    const n = Number(answer);
    if (Number.isInteger(n) && n >= 1 && n <= count) return n - 1;
    terminal.out(`Please type a number from 1 to ${count}.`);
  }
}

/** The stack's SMTP catcher, read through its HTTP inbox (scripts/lib/smtp-catcher-inbox.ts). */
import { expect } from 'vitest';
import { getStack } from './harness.ts';

export interface CaughtSummary {
  id: string;
  from: string;
  to: string[];
  subject: string | null;
  date: string;
  size: number;
}

export interface CaughtMessage {
  envelope: { from: string; to: string[] };
  from: string;
  to: string;
  subject: string;
  text: string;
  html: string;
  date: string;
  message_id: string;
}

function inboxUrl(path: string): string {
  const stack = getStack();
  if (!stack.mail?.inbox)
    throw new Error('the stack file has no mail.inbox: start the stack with a version of scripts/lib/stack.ts that runs the SMTP catcher');
  return `${stack.mail.inbox}${path}`;
}

/** The messages the catcher holds for `address` (newest first), waiting up to 10 s for `count` of them (0: no wait). */
export async function messagesTo(address: string, count = 1): Promise<CaughtSummary[]> {
  const deadline = Date.now() + 10_000;
  for (;;) {
    const res = await fetch(inboxUrl(`/messages?to=${encodeURIComponent(address)}`));
    expect(res.status).toBe(200);
    const list = (await res.json()) as CaughtSummary[];
    if (list.length >= count || Date.now() > deadline) return list;
    await new Promise((r) => setTimeout(r, 200));
  }
}

/** One caught message, whole. */
export async function message(id: string): Promise<CaughtMessage> {
  const res = await fetch(inboxUrl(`/messages/${id}`));
  expect(res.status).toBe(200);
  return (await res.json()) as CaughtMessage;
}

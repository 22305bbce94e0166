/**
 * Sending mail from the API worker: the configuration from the environment (SMTP_HOST, SMTP_PORT,
 * SMTP_SECURE, SMTP_USER, SMTP_PASSWORD, SMTP_TIMEOUT_MS, MAIL_FROM), a `cloudflare:sockets` connection
 * and the dialogue of smtp.ts. `sendMail` never throws for a mail problem and never pretends: the
 * answer says whether the message left (`sent: true`) or why not (`sent: false, reason`).
 */
import { connect } from 'cloudflare:sockets';
import type { Env } from '../env.ts';
import type { Mailbox } from './address.ts';
import { buildMessage, dotStuff, senderOf, type MailMessage } from './message.ts';
import { deliver, SmtpError, type DialogueOptions } from './smtp.ts';

export type MailEnv = Pick<Env, 'SMTP_HOST' | 'SMTP_PORT' | 'SMTP_SECURE' | 'SMTP_USER' | 'SMTP_PASSWORD' | 'SMTP_TIMEOUT_MS' | 'MAIL_FROM'>;

export type MailResult =
  | { sent: true; messageId: string; accepted: string[]; rejected: { address: string; reason: string }[] }
  | { sent: false; reason: string };

export interface MailConfig {
  host: string;
  port: number;
  secure: 'off' | 'starttls' | 'tls';
  user?: string;
  password?: string;
  timeoutMs: number;
  from: Mailbox;
}

export interface Mailer {
  sendMail(mail: MailMessage): Promise<MailResult>;
}

export const NO_SMTP_REASON = 'no mail server is configured (SMTP_HOST is not set)';

let reportedNoHost = false;

/** The configuration, or why there is none / why it is unusable. */
export function mailConfig(env: MailEnv): { config: MailConfig } | { reason: string } {
  const host = env.SMTP_HOST?.trim();
  if (!host) return { reason: NO_SMTP_REASON };
  const secure = (env.SMTP_SECURE?.trim().toLowerCase() || 'off') as MailConfig['secure'];
  if (!['off', 'starttls', 'tls'].includes(secure)) return { reason: `SMTP_SECURE must be off, starttls or tls (it is ${JSON.stringify(env.SMTP_SECURE)})` };
  const port = env.SMTP_PORT?.trim() ? Number(env.SMTP_PORT) : secure === 'tls' ? 465 : secure === 'starttls' ? 587 : 25;
  if (!Number.isInteger(port) || port < 1 || port > 65535) return { reason: `SMTP_PORT must be a port number (it is ${JSON.stringify(env.SMTP_PORT)})` };
  const timeoutMs = env.SMTP_TIMEOUT_MS?.trim() ? Number(env.SMTP_TIMEOUT_MS) : 15_000;
  if (!Number.isFinite(timeoutMs) || timeoutMs <= 0)
    return { reason: `SMTP_TIMEOUT_MS must be a positive number (it is ${JSON.stringify(env.SMTP_TIMEOUT_MS)})` };
  let from: Mailbox;
  try {
    from = senderOf(env.MAIL_FROM);
  } catch (err) {
    return { reason: `MAIL_FROM is not usable: ${(err as Error).message}` };
  }
  return { config: { host, port, secure, user: env.SMTP_USER || undefined, password: env.SMTP_PASSWORD || undefined, timeoutMs, from } };
}

const isLoopback = (host: string) => host === 'localhost' || host === '::1' || host === '[::1]' || /^127\./.test(host);

function open(config: MailConfig): Socket {
  const secureTransport = config.secure === 'tls' ? 'on' : config.secure === 'starttls' ? 'starttls' : 'off';
  return connect({ hostname: config.host, port: config.port }, { secureTransport, allowHalfOpen: false });
}

async function opened(stream: ReturnType<typeof connect>, config: MailConfig): Promise<void> {
  let timer: ReturnType<typeof setTimeout> | undefined;
  try {
    await Promise.race([
      stream.opened,
      new Promise<never>((_, reject) => {
        timer = setTimeout(() => reject(new SmtpError(`no connection within ${Math.round(config.timeoutMs / 1000)} s`)), config.timeoutMs);
      }),
    ]);
  } finally {
    if (timer !== undefined) clearTimeout(timer);
  }
}

function notSent(to: MailMessage['to'], reason: string): MailResult {
  console.error(`mail: not sent to ${JSON.stringify(to ?? '')}: ${reason}`);
  return { sent: false, reason };
}

/** Sends one message with this configuration; on failure the reason names the server. */
async function sendWith(config: MailConfig, mail: MailMessage): Promise<MailResult> {
  let built: ReturnType<typeof buildMessage>;
  try {
    built = buildMessage(mail, { from: config.from });
  } catch (err) {
    return notSent(mail.to, (err as Error).message);
  }
  const where = `mail server ${config.host}:${config.port}`;
  const socket = open(config);
  try {
    await opened(socket, config);
    const opts: DialogueOptions = {
      heloName: config.from.address.split('@')[1]!,
      startTls: config.secure === 'starttls',
      encrypted: config.secure === 'tls',
      loopback: isLoopback(config.host),
      user: config.user,
      password: config.password,
      timeoutMs: config.timeoutMs,
    };
    const delivery = await deliver(socket, opts, built.envelope, dotStuff(built.raw));
    return { sent: true, messageId: built.messageId, accepted: delivery.accepted, rejected: delivery.rejected };
  } catch (err) {
    await socket.close().catch(() => undefined);
    const reason = err instanceof SmtpError ? `${err.message} (${where})` : `could not talk to the ${where}: ${(err as Error).message}`;
    return notSent(mail.to, reason);
  }
}

/** `sent: false` with the reason when this environment cannot send mail (no SMTP_HOST: logged once per isolate). */
export function mailUnavailable(env: MailEnv): MailResult | null {
  const cfg = mailConfig(env);
  if (!('reason' in cfg)) return null;
  if (cfg.reason !== NO_SMTP_REASON || !reportedNoHost) console.warn(`mail: not sending e-mail: ${cfg.reason}`);
  if (cfg.reason === NO_SMTP_REASON) reportedNoHost = true;
  return { sent: false, reason: cfg.reason };
}

/** A mailer for this environment: every send answers whether the message left, or why not. */
export function createMailer(env: MailEnv): Mailer {
  return {
    async sendMail(mail) {
      const cfg = mailConfig(env);
      return 'reason' in cfg ? mailUnavailable(env)! : sendWith(cfg.config, mail);
    },
  };
}

/** What an API answer tells about a message: `{sent: true}` or `{sent: false, reason}`. */
export function mailMeta(result: MailResult): { sent: true } | { sent: false; reason: string } {
  return result.sent ? { sent: true } : { sent: false, reason: result.reason };
}

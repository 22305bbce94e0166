/**
 * An organization's SSH key pair for tunnels (ARCHITECTURE D51): ed25519, made with WebCrypto (so it
 * runs in workerd and in Node), written in OpenSSH's own formats: the public key as an
 * `authorized_keys` line and the private key as an unencrypted `openssh-key-v1` block (which ssh2
 * reads); the private key is sealed with encryptSecret before it is stored.
 */

const enc = new TextEncoder();

function u32(n: number): Uint8Array {
  return new Uint8Array([(n >>> 24) & 255, (n >>> 16) & 255, (n >>> 8) & 255, n & 255]);
}

function concat(parts: Uint8Array[]): Uint8Array {
  const out = new Uint8Array(parts.reduce((n, p) => n + p.length, 0));
  let at = 0;
  for (const p of parts) {
    out.set(p, at);
    at += p.length;
  }
  return out;
}

/** An SSH wire `string`: a 32-bit length, then the bytes. */
function sshString(data: Uint8Array | string): Uint8Array {
  const bytes = typeof data === 'string' ? enc.encode(data) : data;
  return concat([u32(bytes.length), bytes]);
}

function base64(bytes: Uint8Array): string {
  let s = '';
  for (const b of bytes) s += String.fromCharCode(b);
  return btoa(s);
}

/** The public key blob of an ed25519 key (RFC 8709). */
function publicBlob(pub: Uint8Array): Uint8Array {
  return concat([sshString('ssh-ed25519'), sshString(pub)]);
}

export interface SshKeyPair {
  /** `ssh-ed25519 AAAA… <comment>`: one authorized_keys line. */
  publicKey: string;
  /** `-----BEGIN OPENSSH PRIVATE KEY-----` …, unencrypted (seal it before storing). */
  privateKey: string;
}

/** A new ed25519 key pair; `comment` ends the public key line (e.g. `cairn-org-<id>`). */
export async function generateSshKeyPair(comment: string): Promise<SshKeyPair> {
  const pair = (await crypto.subtle.generateKey({ name: 'Ed25519' }, true, ['sign', 'verify'])) as CryptoKeyPair;
  const pub = new Uint8Array((await crypto.subtle.exportKey('raw', pair.publicKey)) as ArrayBuffer);
  // PKCS#8 of an ed25519 key ends with its 32-byte seed.
  const pkcs8 = new Uint8Array((await crypto.subtle.exportKey('pkcs8', pair.privateKey)) as ArrayBuffer);
  const seed = pkcs8.slice(pkcs8.length - 32);
  const blob = publicBlob(pub);
  const check = crypto.getRandomValues(new Uint8Array(4));
  let secret = concat([check, check, sshString('ssh-ed25519'), sshString(pub), sshString(concat([seed, pub])), sshString(comment)]);
  // Padded to the cipher's block size (8 for "none") with 1, 2, 3 …
  const pad = (8 - (secret.length % 8)) % 8;
  secret = concat([secret, Uint8Array.from({ length: pad }, (_, i) => i + 1)]);
  const body = concat([
    enc.encode('openssh-key-v1\0'),
    sshString('none'),
    sshString('none'),
    sshString(new Uint8Array(0)),
    u32(1),
    sshString(blob),
    sshString(secret),
  ]);
  const lines = base64(body).match(/.{1,70}/g) ?? [];
  return {
    publicKey: `ssh-ed25519 ${base64(blob)} ${comment}`,
    privateKey: `-----BEGIN OPENSSH PRIVATE KEY-----\n${lines.join('\n')}\n-----END OPENSSH PRIVATE KEY-----\n`,
  };
}

/** The comment that ends an organization's public key line. */
export const sshKeyComment = (organizationId: string) => `cairn-${organizationId}`;

/**
 * The exact line for the SSH server's `~/.ssh/authorized_keys`: the key may open TCP forwards only
 * (no shell, no agent, X11 or pty), which is all Cairn needs.
 */
export function authorizedKeysLine(publicKey: string): string {
  return `restrict,port-forwarding ${publicKey}`;
}

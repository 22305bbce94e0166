/**
 * QR codes drawn in the page (issue 20): the otpauth:// link of an authenticator enrolment carries the
 * secret, so it is encoded here by `uqr` (a small encoder without dependencies, the same code on the
 * server render and in the browser) and never sent to a QR service or any other host.
 */
import { encode } from 'uqr';

/** The modules of the QR code of `text` (medium error correction), `true` for dark, with no border. */
export function qrModules(text: string): boolean[][] {
  return encode(text, { ecc: 'M', border: 0 }).data;
}

/** One SVG path of the dark modules (1 unit each), row by row, runs of dark modules as one rectangle. */
export function qrPath(modules: boolean[][]): string {
  const parts: string[] = [];
  modules.forEach((row, y) => {
    for (let x = 0; x < row.length; x++) {
      if (!row[x]) continue;
      let end = x;
      while (end + 1 < row.length && row[end + 1]) end++;
      parts.push(`M${x} ${y}h${end - x + 1}v1h-${end - x + 1}z`);
      x = end;
    }
  });
  return parts.join('');
}

/**
 * The enrolment QR code decodes to the otpauth:// link it was made from: the modules are drawn as
 * pixels the way QrCode.tsx draws them (the SVG path, quiet zone included) and read back by jsQR, an
 * independent decoder.
 */
import { describe, expect, it } from 'vitest';
import jsQR from 'jsqr';
import { otpauthUri, newTotpSecret } from '@cairn/core';
import { qrModules, qrPath } from './qr';

/** Rasterizes an SVG path of unit rectangles (`M x y h w v1 h-w z`), as qrPath writes it, at `scale` pixels a module. */
function raster(modules: boolean[][], path: string, scale = 4, quiet = 4) {
  const n = (modules.length + quiet * 2) * scale;
  const rgba = new Uint8ClampedArray(n * n * 4).fill(255);
  for (const m of path.matchAll(/M(\d+) (\d+)h(\d+)v1h-\d+z/g)) {
    const [x, y, w] = [Number(m[1]), Number(m[2]), Number(m[3])];
    for (let py = (y + quiet) * scale; py < (y + quiet + 1) * scale; py++) {
      for (let px = (x + quiet) * scale; px < (x + quiet + w) * scale; px++) {
        const i = (py * n + px) * 4;
        rgba[i] = rgba[i + 1] = rgba[i + 2] = 0;
      }
    }
  }
  return { rgba, n };
}

describe('enrolment QR code', () => {
  it('decodes to the otpauth:// link, secret included', () => {
    for (const account of ['ada@example.test', 'a.very.long+address_with-parts@subdomain.example.test']) {
      const uri = otpauthUri({ secret: newTotpSecret(), account, issuer: 'Cairn' });
      const modules = qrModules(uri);
      const path = qrPath(modules);
      // The path covers exactly the dark modules.
      const dark = modules.flat().filter(Boolean).length;
      const drawn = [...path.matchAll(/h(\d+)v1/g)].reduce((s, m) => s + Number(m[1]), 0);
      expect(drawn).toBe(dark);
      const { rgba, n } = raster(modules, path);
      const read = jsQR(rgba, n, n);
      expect(read?.data).toBe(uri);
    }
  });

  it('draws different links differently', () => {
    const a = qrPath(qrModules('otpauth://totp/Cairn:a@example.test?secret=AAAA'));
    const b = qrPath(qrModules('otpauth://totp/Cairn:b@example.test?secret=AAAA'));
    expect(a).not.toBe(b);
  });
});

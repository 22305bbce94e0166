/**
 * Stands in for the `cpu-features` native addon, an optional dependency of ssh2 (D51) that npm builds
 * where a compiler is present. Workers cannot load native addons and esbuild cannot bundle a `.node`
 * file, so wrangler aliases the package to this module (wrangler.toml [alias]). ssh2 calls it inside a
 * try/catch and only uses the answer to prefer ChaCha20 on CPUs without AES instructions; throwing
 * leaves its defaults, which the ssh2 patch narrows to AES-CTR in workerd anyway.
 */
export default function cpuFeatures(): never {
  throw new Error('cpu-features is not available in workerd');
}

/** Streaming writers of downloads (CSV, XLSX, zip) over stored result chunks; pure, for workerd and Node. */
export * from './options.ts';
export * from './bytes.ts';
export * from './cells.ts';
export * from './csv.ts';
export * from './crc32.ts';
export * from './zip.ts';
export * from './names.ts';
export * from './xlsx.ts';
export { Style as XlsxStyle, columnName } from './xlsx-parts.ts';
export * from './stream.ts';

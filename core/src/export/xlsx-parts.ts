/**
 * The fixed parts of an XLSX workbook (SpreadsheetML, ECMA-376): content types, relationships,
 * workbook and styles. The worksheets themselves are streamed by xlsx.ts.
 */
const MAIN = 'http://schemas.openxmlformats.org/spreadsheetml/2006/main';
const REL = 'http://schemas.openxmlformats.org/officeDocument/2006/relationships';
const PKG_REL = 'http://schemas.openxmlformats.org/package/2006/relationships';
const HEAD = '<?xml version="1.0" encoding="UTF-8" standalone="yes"?>\n';

/** Cell style indexes (cellXfs) used by the sheets. */
export const Style = { Default: 0, Date: 1, DateTime: 2, Time: 3, Header: 4 } as const;

export function escapeXmlAttribute(s: string): string {
  return s.replace(/[&<>"']/g, (c) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&apos;' })[c]!);
}

export const sheetPath = (n: number) => `xl/worksheets/sheet${n}.xml`;

export function contentTypesXml(sheets: number): string {
  const overrides = Array.from(
    { length: sheets },
    (_, i) => `<Override PartName="/${sheetPath(i + 1)}" ContentType="application/vnd.openxmlformats-officedocument.spreadsheetml.worksheet+xml"/>`,
  ).join('');
  return (
    `${HEAD}<Types xmlns="http://schemas.openxmlformats.org/package/2006/content-types">` +
    '<Default Extension="rels" ContentType="application/vnd.openxmlformats-package.relationships+xml"/>' +
    '<Default Extension="xml" ContentType="application/xml"/>' +
    '<Override PartName="/xl/workbook.xml" ContentType="application/vnd.openxmlformats-officedocument.spreadsheetml.sheet.main+xml"/>' +
    '<Override PartName="/xl/styles.xml" ContentType="application/vnd.openxmlformats-officedocument.spreadsheetml.styles+xml"/>' +
    overrides +
    '</Types>'
  );
}

export function rootRelsXml(): string {
  return `${HEAD}<Relationships xmlns="${PKG_REL}">` + `<Relationship Id="rId1" Type="${REL}/officeDocument" Target="xl/workbook.xml"/>` + '</Relationships>';
}

export function workbookXml(names: readonly string[]): string {
  const sheets = names.map((n, i) => `<sheet name="${escapeXmlAttribute(n)}" sheetId="${i + 1}" r:id="rId${i + 1}"/>`).join('');
  return (
    `${HEAD}<workbook xmlns="${MAIN}" xmlns:r="${REL}">` + '<bookViews><workbookView activeTab="0"/></bookViews>' + `<sheets>${sheets}</sheets>` + '</workbook>'
  );
}

export function workbookRelsXml(sheets: number): string {
  const rels = Array.from({ length: sheets }, (_, i) => `<Relationship Id="rId${i + 1}" Type="${REL}/worksheet" Target="worksheets/sheet${i + 1}.xml"/>`).join(
    '',
  );
  return (
    `${HEAD}<Relationships xmlns="${PKG_REL}">${rels}` + `<Relationship Id="rId${sheets + 1}" Type="${REL}/styles" Target="styles.xml"/>` + '</Relationships>'
  );
}

/** Number formats 164–166 are ours: ISO-like dates, date-times and times. Style 4 is the bold header. */
export function stylesXml(): string {
  const xf = (numFmt: number, extra = '') => `<xf numFmtId="${numFmt}" fontId="0" fillId="0" borderId="0" xfId="0"${extra}/>`;
  return (
    `${HEAD}<styleSheet xmlns="${MAIN}">` +
    '<numFmts count="3">' +
    '<numFmt numFmtId="164" formatCode="yyyy-mm-dd"/>' +
    '<numFmt numFmtId="165" formatCode="yyyy-mm-dd hh:mm:ss"/>' +
    '<numFmt numFmtId="166" formatCode="hh:mm:ss"/>' +
    '</numFmts>' +
    '<fonts count="2"><font><sz val="11"/><name val="Calibri"/><family val="2"/></font>' +
    '<font><b/><sz val="11"/><name val="Calibri"/><family val="2"/></font></fonts>' +
    '<fills count="2"><fill><patternFill patternType="none"/></fill><fill><patternFill patternType="gray125"/></fill></fills>' +
    '<borders count="1"><border><left/><right/><top/><bottom/><diagonal/></border></borders>' +
    '<cellStyleXfs count="1"><xf numFmtId="0" fontId="0" fillId="0" borderId="0"/></cellStyleXfs>' +
    '<cellXfs count="5">' +
    xf(0) +
    xf(164, ' applyNumberFormat="1"') +
    xf(165, ' applyNumberFormat="1"') +
    xf(166, ' applyNumberFormat="1"') +
    '<xf numFmtId="0" fontId="1" fillId="0" borderId="0" xfId="0" applyFont="1"/>' +
    '</cellXfs>' +
    '<cellStyles count="1"><cellStyle name="Normal" xfId="0" builtinId="0"/></cellStyles>' +
    '</styleSheet>'
  );
}

/** A worksheet's opening: frozen header row and column widths, up to `<sheetData>`. */
export function sheetHeadXml(widths: readonly number[]): string {
  const cols = widths.length ? `<cols>${widths.map((w, i) => `<col min="${i + 1}" max="${i + 1}" width="${w}" customWidth="1"/>`).join('')}</cols>` : '';
  return (
    `${HEAD}<worksheet xmlns="${MAIN}" xmlns:r="${REL}">` +
    '<sheetViews><sheetView workbookViewId="0"><pane ySplit="1" topLeftCell="A2" activePane="bottomLeft" state="frozen"/></sheetView></sheetViews>' +
    `<sheetFormatPr defaultRowHeight="15"/>${cols}<sheetData>`
  );
}

export const SHEET_TAIL = '</sheetData></worksheet>';

/** Column letters: 0 → A, 25 → Z, 26 → AA … 16383 → XFD. */
export function columnName(index: number): string {
  let s = '';
  for (let n = index + 1; n > 0; n = Math.floor((n - 1) / 26)) s = String.fromCharCode(65 + ((n - 1) % 26)) + s;
  return s;
}

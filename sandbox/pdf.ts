/** A small, valid one-page PDF naming the document (text in the PDF's standard Latin font). */
import type { ApiRecord } from '../functions/accounting/api.js';

function pdfText(value: string): string {
  return value
    .normalize('NFD')
    .replace(/[\u0300-\u036f]/g, '')
    .replace(/[^\x20-\x7e]/g, '?')
    .replace(/([\\()])/g, '\\$1');
}

export function documentPdf(collection: string, record: ApiRecord, language: 'Current' | 'English'): Buffer {
  const total = (record.DocumentRecapitulation as { TotalPrice?: number } | undefined)?.TotalPrice;
  const partner = (record.BusinessPartnerAddress as { CompanyName?: string } | null)?.CompanyName ?? '';
  const lines = [
    `${language === 'English' ? 'Document' : 'Doklad'} ${String(record.DocumentNumber ?? record.Id)}`,
    `${collection} ${String(record.IssueDate ?? '').slice(0, 10)}`,
    partner,
    `${language === 'English' ? 'Total' : 'Spolu'}: ${Number(total ?? 0).toFixed(2)} EUR`,
  ];
  const content = lines
    .map((l, i) => `BT /F1 ${i === 0 ? 16 : 11} Tf 56 ${780 - i * 22} Td (${pdfText(l)}) Tj ET`)
    .join('\n');
  const objects = [
    '<< /Type /Catalog /Pages 2 0 R >>',
    '<< /Type /Pages /Kids [3 0 R] /Count 1 >>',
    '<< /Type /Page /Parent 2 0 R /MediaBox [0 0 595 842] /Resources << /Font << /F1 5 0 R >> >> /Contents 4 0 R >>',
    `<< /Length ${Buffer.byteLength(content, 'latin1')} >>\nstream\n${content}\nendstream`,
    '<< /Type /Font /Subtype /Type1 /BaseFont /Helvetica /Encoding /WinAnsiEncoding >>',
  ];
  let out = '%PDF-1.4\n%\xe2\xe3\xcf\xd3\n';
  const offsets: number[] = [];
  objects.forEach((body, i) => {
    offsets.push(Buffer.byteLength(out, 'latin1'));
    out += `${i + 1} 0 obj\n${body}\nendobj\n`;
  });
  const xref = Buffer.byteLength(out, 'latin1');
  out += `xref\n0 ${objects.length + 1}\n0000000000 65535 f \n`;
  for (const o of offsets) out += `${String(o).padStart(10, '0')} 00000 n \n`;
  out += `trailer\n<< /Size ${objects.length + 1} /Root 1 0 R >>\nstartxref\n${xref}\n%%EOF\n`;
  return Buffer.from(out, 'latin1');
}

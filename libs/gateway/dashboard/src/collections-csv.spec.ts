import type { CollectionDetails } from '@paygate/contracts';
import { ACKNOWLEDGED_MOMO_RECORD } from '@paygate/testing';
import { CSV_HEADER, csvRows } from './collections-csv';

const record = (overrides: Partial<CollectionDetails>): CollectionDetails => ({
  ...ACKNOWLEDGED_MOMO_RECORD,
  id: 7,
  merchant_reference: 'order-7',
  internal_reference: 'PG7K3M9Q2X4T8V6B1N5R0D2F3H',
  transaction_status: 'COMPLETED',
  status_message: 'Transaction completed successfully',
  transaction_method: 'MOBILE_MONEY',
  transaction_account: '256772000001',
  customer_name: 'Jane Doe',
  created_at: '2026-11-27T10:00:00.000Z',
  updated_at: '2026-11-27T10:00:02.000Z',
  ...overrides,
});

describe('the collections CSV export', () => {
  it('writes one line per collection under a header of the record’s field names', () => {
    expect(CSV_HEADER.split(',').slice(0, 3)).toEqual(['created_at', 'merchant_reference', 'internal_reference']);
    expect(csvRows([record({})])).toBe(
      '2026-11-27T10:00:00.000Z,order-7,PG7K3M9Q2X4T8V6B1N5R0D2F3H,MOBILE_MONEY,mtn_momo_ug,UGX,81000,1215,81000,79785,false,COMPLETED,Transaction completed successfully,256772000001,Jane Doe,,2026-11-27T10:00:02.000Z\r\n',
    );
  });

  it('quotes commas, quotes and line breaks, and keeps a spreadsheet from running a formula', () => {
    const line = csvRows([record({ customer_name: '=HYPERLINK("http://x","Doe, J")', status_message: 'two\nlines' })]);
    expect(line).toContain(`,"'=HYPERLINK(""http://x"",""Doe, J"")",`);
    expect(line).toContain(',"two\nlines",');
    expect(csvRows([record({ customer_name: '-1+1' })])).toContain(",'-1+1,");
  });

  it('prefixes a text that starts with a line break, as it does the other formula starters', () => {
    expect(csvRows([record({ customer_name: '\n=1+1' })])).toContain(`,"'\n=1+1",`);
    expect(csvRows([record({ customer_name: '\r\n=1+1' })])).toContain(`,"'\r\n=1+1",`);
    expect(csvRows([record({ customer_name: '\t=1+1' })])).toContain(`,'\t=1+1,`);
  });
});

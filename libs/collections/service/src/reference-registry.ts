import { assertSameRequest, newInternalReference } from '@paygate/collections-domain';
import { JOBS_MIGRATIONS } from '@paygate/jobs';
import { migrate, type SqlClient, type SqlDatabase } from '@paygate/sql';
import { COLLECTIONS_MIGRATIONS } from './migrations';

export interface ReservedReference {
  id: number;
  internalReference: string;
  requestHash: string;
  /** False when the merchant had already used this merchant_reference. */
  fresh: boolean;
}

/**
 * Makes merchant_reference unique per merchant and hands out the numeric id. With the SQL event
 * store the row is written in the transaction of the collection's first events (`client` is
 * that transaction); with KurrentDB it is written before them, so a crash in between leaves a
 * reservation that the same request, retried, completes.
 */
export class ReferenceRegistry {
  private constructor(private readonly sql: SqlDatabase) {}

  static async open(sql: SqlDatabase): Promise<ReferenceRegistry> {
    await migrate(sql, [...JOBS_MIGRATIONS, ...COLLECTIONS_MIGRATIONS]);
    return new ReferenceRegistry(sql);
  }

  async reserve(
    merchantId: string,
    merchantReference: string,
    internalReference: string,
    requestHash: string,
    client: SqlClient = this.sql,
  ): Promise<ReservedReference> {
    const inserted = await client.query<{ id: string }>(
      `insert into collection_references (merchant_id, merchant_reference, internal_reference, request_hash)
       values ($1, $2, $3, $4) on conflict (merchant_id, merchant_reference) do nothing returning id`,
      [merchantId, merchantReference, internalReference, requestHash],
    );
    if (inserted.length > 0) return { id: Number(inserted[0].id), internalReference, requestHash, fresh: true };
    const existing = await this.find(merchantId, merchantReference, client);
    if (!existing) throw new Error('reservation vanished');
    return { ...existing, fresh: false };
  }

  /**
   * The reservation of a new collection's merchant reference as the runtime's claim (DeciderRuntime.startClaimed):
   * a reference used before must name the same request (the same hash), or the request is refused.
   */
  claim(merchantId: string, merchantReference: string, requestHash: string) {
    return {
      claim: async (client: SqlClient | undefined) =>
        assertSameRequest(
          await this.reserve(merchantId, merchantReference, newInternalReference(), requestHash, client),
          requestHash,
          merchantReference,
        ),
      isNew: (reserved: ReservedReference) => reserved.fresh,
      release: (reserved: ReservedReference) => this.release(merchantId, merchantReference, reserved.internalReference),
    };
  }

  /** Frees a fresh reservation whose collection could not be written, so the reference stays usable. */
  async release(merchantId: string, merchantReference: string, internalReference: string): Promise<void> {
    await this.sql.query(
      'delete from collection_references where merchant_id = $1 and merchant_reference = $2 and internal_reference = $3',
      [merchantId, merchantReference, internalReference],
    );
  }

  async find(
    merchantId: string,
    merchantReference: string,
    client: SqlClient = this.sql,
  ): Promise<Omit<ReservedReference, 'fresh'> | null> {
    const [row] = await client.query<{ id: string; internal_reference: string; request_hash: string }>(
      'select id, internal_reference, request_hash from collection_references where merchant_id = $1 and merchant_reference = $2',
      [merchantId, merchantReference],
    );
    return row
      ? { id: Number(row.id), internalReference: row.internal_reference, requestHash: row.request_hash }
      : null;
  }
}

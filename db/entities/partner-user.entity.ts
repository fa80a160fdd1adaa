import { defineEntity, p } from '@mikro-orm/core';
import type { InferEntity } from '@mikro-orm/core';

/** One of a partner's end users, with the KYC fields of the spec's User object. */
export const PartnerUser = defineEntity({
  name: 'PartnerUser',
  tableName: 'partner_user',
  properties: {
    id: p.uuid().primary(),
    partnerId: p.uuid().fieldName('partner_id'),
    externalUserId: p.text().fieldName('external_user_id'),
    email: p.text(),
    firstName: p.text().fieldName('first_name'),
    lastName: p.text().fieldName('last_name'),
    address: p.text(),
    city: p.text(),
    /** ISO 3166-1 alpha-2. */
    country: p.text(),
    documentType: p.text().fieldName('document_type'),
    documentNumber: p.text().fieldName('document_number'),
    pesel: p.text().nullable(),
    birthCountry: p.text().fieldName('birth_country').nullable(),
    /** YYYY-MM-DD. */
    birthDate: p.string().columnType('date').fieldName('birth_date').nullable(),
    createdAt: p.datetime().columnType('timestamptz').defaultRaw('now()').fieldName('created_at'),
    updatedAt: p.datetime().columnType('timestamptz').defaultRaw('now()').fieldName('updated_at'),
  },
});
export type PartnerUser = InferEntity<typeof PartnerUser>;

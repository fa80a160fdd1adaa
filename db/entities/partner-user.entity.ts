import { EntitySchema } from '@mikro-orm/core';

/** One of a partner's end users, with the KYC fields of the spec's User object. */
export class PartnerUser {
  id!: string;
  partnerId!: string;
  externalUserId!: string;
  email!: string;
  firstName!: string;
  lastName!: string;
  address!: string;
  city!: string;
  /** ISO 3166-1 alpha-2. */
  country!: string;
  documentType!: string;
  documentNumber!: string;
  pesel?: string | null;
  birthCountry?: string | null;
  /** YYYY-MM-DD. */
  birthDate?: string | null;
  createdAt!: Date;
  updatedAt!: Date;
}

export const PartnerUserSchema = new EntitySchema<PartnerUser>({
  class: PartnerUser,
  tableName: 'partner_user',
  properties: {
    id: { type: 'uuid', primary: true },
    partnerId: { type: 'uuid', fieldName: 'partner_id' },
    externalUserId: { type: 'text', fieldName: 'external_user_id' },
    email: { type: 'text' },
    firstName: { type: 'text', fieldName: 'first_name' },
    lastName: { type: 'text', fieldName: 'last_name' },
    address: { type: 'text' },
    city: { type: 'text' },
    country: { type: 'text' },
    documentType: { type: 'text', fieldName: 'document_type' },
    documentNumber: { type: 'text', fieldName: 'document_number' },
    pesel: { type: 'text', nullable: true },
    birthCountry: { type: 'text', fieldName: 'birth_country', nullable: true },
    birthDate: { type: 'string', columnType: 'date', fieldName: 'birth_date', nullable: true },
    createdAt: { type: 'Date', columnType: 'timestamptz', fieldName: 'created_at' },
    updatedAt: { type: 'Date', columnType: 'timestamptz', fieldName: 'updated_at' },
  },
});

import { derivedTransferId } from '../../db/ledger/derived-transfer-id';

describe('a transfer id derived from an operation id', () => {
  const withdrawalId = '5b0e1c9e-8d55-4a8f-9a51-1f3c2f0f4b7e';

  it('is the same on every run, whatever the letter case of the operation id', () => {
    expect(derivedTransferId(withdrawalId, 'kept-network-fee')).toBe(derivedTransferId(withdrawalId.toUpperCase(), 'kept-network-fee'));
  });

  it('is a version-8 UUID of the RFC 9562 variant, never the operation id itself', () => {
    const id = derivedTransferId(withdrawalId, 'kept-network-fee');
    expect(id).toMatch(/^[0-9a-f]{8}-[0-9a-f]{4}-8[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/);
    expect(id).not.toBe(withdrawalId);
  });

  it('differs between operations', () => {
    const ids = new Set(
      Array.from({ length: 1000 }, (_, index) =>
        derivedTransferId(`00000000-0000-4000-8000-${String(index).padStart(12, '0')}`, 'kept-network-fee'),
      ),
    );
    expect(ids.size).toBe(1000);
  });
});

import { redactSecrets } from '../../core/secret-redaction';

describe('redactSecrets', () => {
  it('redacts values under keys that name a secret, at any depth, and keeps ids and names', () => {
    expect(
      redactSecrets({
        apiKey: 'anything',
        apiKeyId: '6f1c2a10-7b7e-4c36-9d2e-4d8f1e2b3c4d',
        secret: 'x',
        webhook: { signingSecret: 'y', url: 'https://example.com/hook' },
        payloadKeys: 'k1:abc',
        hotWalletPrivateKey: '0xabc',
        evmDepositSeed: '5eb0',
        depositKeys: { evmPublicKey: 'xpub6', seeds: { evm: '5eb0' } },
        EVM_DEPOSIT_XPUB: 'xpub6',
        mnemonic: 'abandon',
        token: 't',
        list: [{ password: 'p', name: 'Alice' }],
        name: 'Acme',
      }),
    ).toEqual({
      apiKey: '[redacted]',
      apiKeyId: '6f1c2a10-7b7e-4c36-9d2e-4d8f1e2b3c4d',
      secret: '[redacted]',
      webhook: { signingSecret: '[redacted]', url: 'https://example.com/hook' },
      payloadKeys: '[redacted]',
      hotWalletPrivateKey: '[redacted]',
      evmDepositSeed: '[redacted]',
      depositKeys: '[redacted]',
      EVM_DEPOSIT_XPUB: '[redacted]',
      mnemonic: '[redacted]',
      token: '[redacted]',
      list: [{ password: '[redacted]', name: 'Alice' }],
      name: 'Acme',
    });
  });

  it('redacts an API key or webhook secret wherever it appears', () => {
    expect(redactSecrets({ note: 'pk_live_abc', nested: ['whsec_abc', 'plain'] })).toEqual({
      note: '[redacted]',
      nested: ['[redacted]', 'plain'],
    });
  });

  it('leaves numbers, booleans and null alone', () => {
    expect(redactSecrets({ rotated: true, eventsGivenUp: 3, from: null })).toEqual({ rotated: true, eventsGivenUp: 3, from: null });
  });
});

import { estimatedEntropyBits, generateStrongSecret, secretWeakness } from '../../core/secret-strength';

describe('secret strength (CODEC_ENDPOINT_TOKEN in production)', () => {
  it.each([
    ['64 hex digits (openssl rand -hex 32)', '3f9c0a7be14d58e2c6b0a9f1d47e3c25b8a6f0e9d1c2b3a4958677e6d5c4b3a2'],
    ['43 base64url characters (32 random bytes)', 'q3ZV0m8J_xkR-2cT9bLwYpN4sEaH7uDfGiK1oMnQrSt'],
    ['32 characters of every class', 'Tq7#mZ2!vR9$kW4&pX6*nB8@cJ3%hL5^'],
    ['32 lowercase letters, all different enough', 'qwertzuiopasdfghjklyxcvbnmqwertz'],
  ])('accepts %s', (_what, secret) => {
    expect(secretWeakness(secret)).toBeUndefined();
  });

  it.each([
    ['a short one', 'codec-token-16ch', 'must be at least 32 characters long (it has 16)'],
    ['31 characters', 'a1b2c3d4e5f6a7b8c9d0e1f2a3b4c5d', 'must be at least 32 characters long (it has 31)'],
    ['a long repetition', 'abababababababababababababababababababab', 'must have at least 10 different characters (it has 2)'],
    ['nine characters repeated', '123456789'.repeat(5), 'must have at least 10 different characters (it has 9)'],
    ['38 digits: about 126 bits', '01234567890123456789012345678901234567', 'must carry at least 128 bits of entropy'],
  ])('refuses %s, naming the rule', (_what, secret, rule) => {
    expect(secretWeakness(secret)).toContain(rule);
  });

  it('never quotes the secret in its refusal', () => {
    const secret = 'tooShort-but-secret';
    expect(secretWeakness(secret)).not.toContain(secret);
    const digits = '0123456789'.repeat(3) + '01234567';
    expect(secretWeakness(digits)).not.toContain(digits);
  });

  it('estimates length × log2 of the alphabet its character classes suggest', () => {
    expect(estimatedEntropyBits('')).toBe(0);
    expect(estimatedEntropyBits('0'.repeat(39))).toBeCloseTo(39 * Math.log2(10));
    expect(estimatedEntropyBits('a'.repeat(10) + 'A'.repeat(10) + '0'.repeat(12))).toBeCloseTo(32 * Math.log2(62));
    expect(estimatedEntropyBits('a-'.repeat(16))).toBeCloseTo(32 * Math.log2(26 + 33));
    // Counted in characters, not UTF-16 units.
    expect(estimatedEntropyBits('€'.repeat(4))).toBeCloseTo(4 * Math.log2(33));
  });

  it('generates tokens that pass, each a different one (what npm start uses)', () => {
    const tokens = Array.from({ length: 50 }, generateStrongSecret);
    for (const token of tokens) {
      expect(token).toMatch(/^[0-9a-f]{64}$/);
      expect(secretWeakness(token)).toBeUndefined();
    }
    expect(new Set(tokens).size).toBe(50);
  });
});

import { setting } from '../setting';
import { accountPublicKey, depositSeed } from '../values';

function seedSetting(variable: string, what: string) {
  const publicKey = variable.replace('_SEED', '_XPUB');
  return setting(
    variable,
    depositSeed(),
    `the BIP32 seed of the ${what}, 64 to 128 hex digits (\`openssl rand -hex 64\`, or the 64-byte seed of a BIP39 mnemonic): only for the sweeper (\`npm run sweeper\`), never for the API, the worker or \`ops\`; the sweeper keeps only the account keys it derives. Beside \`${publicKey}\`, the two must agree or nothing starts. \`npm start\` and \`npm run start:cluster\` keep one development seed for every family in \`$DATA_DIR/deposit-seed\``,
    { secret: true, shownDefault: '(none: that family is not swept)' },
  );
}

const XPUB_DEFAULT = '(none; `ops partner create` requires it; `npm start` derives it from its development seed)';

/** Deposit HD keys (docs/production.md, "Deposit keys"). An xpub spends nothing but reveals every address: secret too. */
export const DEPOSIT_KEY_SETTINGS = {
  depositKeys: {
    evmPublicKey: setting(
      'EVM_DEPOSIT_XPUB',
      accountPublicKey('evm'),
      "the EVM deposit account's extended public key (`m/44'/60'/0'`, xpub…): eth, usdc and pol deposit addresses (`…/0/i`, one per partner and every EVM network)",
      { secret: true, shownDefault: XPUB_DEFAULT },
    ),
    btcPublicKey: setting(
      'BTC_DEPOSIT_XPUB',
      accountPublicKey('btc'),
      "the bitcoin deposit account's extended public key (BIP84 `m/84'/0'/0'`, xpub… or zpub…; `m/84'/1'/0'` when network_config says testnet or regtest): native segwit addresses",
      { secret: true, shownDefault: XPUB_DEFAULT },
    ),
    ltcPublicKey: setting(
      'LTC_DEPOSIT_XPUB',
      accountPublicKey('ltc'),
      "the litecoin deposit account's extended public key (BIP84 `m/84'/2'/0'`, xpub…, zpub… or Ltub…; `m/84'/1'/0'` on testnet and regtest): native segwit addresses",
      { secret: true, shownDefault: XPUB_DEFAULT },
    ),
    dogePublicKey: setting(
      'DOGE_DEPOSIT_XPUB',
      accountPublicKey('doge'),
      "the dogecoin deposit account's extended public key (BIP44 `m/44'/3'/0'`, xpub… or dgub…; `m/44'/1'/0'` on testnet and regtest): P2PKH addresses",
      { secret: true, shownDefault: XPUB_DEFAULT },
    ),
    /** One seed per family, each only for the sweeper (`npm run sweeper`): a leak of one spends no other family's deposits. */
    seeds: {
      evm: seedSetting('EVM_DEPOSIT_SEED', 'eth, usdc and pol deposit addresses'),
      btc: seedSetting('BTC_DEPOSIT_SEED', 'bitcoin deposit addresses'),
      ltc: seedSetting('LTC_DEPOSIT_SEED', 'litecoin deposit addresses'),
      doge: seedSetting('DOGE_DEPOSIT_SEED', 'dogecoin deposit addresses'),
    },
  },
};

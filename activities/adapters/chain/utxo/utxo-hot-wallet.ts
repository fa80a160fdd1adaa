import { HDKey } from '@scure/bip32';
import * as bitcoin from 'bitcoinjs-lib';
import { chainParameters } from '../../../../core/chain-parameters';
import type { ChainMode } from '../../../../core/chain-parameters';
import { NETWORK_DECLARATIONS } from '../../../../core/networks';
import type { UtxoNetwork } from '../../../../core/networks';

/** BIP32 chains under the account: 0 receives (the address operators fund), 1 takes each transaction's change. */
export type KeyChain = 0 | 1;
export const RECEIVING: KeyChain = 0;
export const CHANGE: KeyChain = 1;

export interface WalletKey {
  chain: KeyChain;
  index: number;
}

/**
 * A UTXO network's hot wallet: one BIP32 account (its extended private key is the setting), native segwit (P2WPKH) where the
 * network has segwit, legacy P2PKH where it has not (dogecoin). Keys are derived on demand and kept for the process.
 */
export class UtxoHotWallet {
  readonly parameters: bitcoin.Network;
  readonly segwit: boolean;
  private readonly account: HDKey;
  private readonly chains: Record<KeyChain, HDKey>;

  constructor(
    readonly network: UtxoNetwork,
    accountExtendedPrivateKey: string,
    readonly mode: ChainMode,
  ) {
    const declaration = NETWORK_DECLARATIONS[network];
    this.parameters = chainParameters(declaration.depositKeys.family, mode);
    this.segwit = declaration.addressFormat === 'segwit';
    this.account = parseAccountKey(accountExtendedPrivateKey);
    this.chains = { 0: this.account.deriveChild(0), 1: this.account.deriveChild(1) };
  }

  /** What the wallet table records, so a worker holding another wallet's key is refused before it signs. */
  get accountPublicKey(): string {
    return this.account.publicExtendedKey;
  }

  key(at: WalletKey): HDKey {
    return this.chains[at.chain].deriveChild(at.index);
  }

  /** The output script paying the key: P2WPKH or P2PKH. */
  script(at: WalletKey): Uint8Array {
    return this.payment(this.key(at).publicKey!).output!;
  }

  address(at: WalletKey): string {
    return this.payment(this.key(at).publicKey!).address!;
  }

  /** The address operators fund the wallet at. */
  get receivingAddress(): string {
    return this.address({ chain: RECEIVING, index: 0 });
  }

  private payment(publicKey: Uint8Array): bitcoin.Payment {
    return this.segwit
      ? bitcoin.payments.p2wpkh({ pubkey: publicKey, network: this.parameters })
      : bitcoin.payments.p2pkh({ pubkey: publicKey, network: this.parameters });
  }
}

/** An account-level extended private key (xprv…/tprv… or a coin's own versions: only the key and chain code are read). */
function parseAccountKey(text: string): HDKey {
  let key: HDKey | undefined;
  for (const versions of [undefined, { private: 0x04358394, public: 0x043587cf }]) {
    try {
      key = HDKey.fromExtendedKey(text, versions);
      break;
    } catch {
      // the next versions
    }
  }
  if (!key?.privateKey) throw new Error('the hot wallet key is not an extended private key (xprv… or tprv…)');
  return key;
}

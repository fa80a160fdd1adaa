import { RAILS, railDeclarationProblems, railsKnownTo, railsOfWorker } from '../../core/rails';
import { InvalidSettingsError, loadSettings } from '../../core/settings';
import type { EvmNetworkSettings } from '../../core/settings';

const ethereumNode: EvmNetworkSettings = {
  rpcUrl: 'http://127.0.0.1:8545',
  chainId: 31337,
  hotWalletPrivateKey: `0x${'1'.repeat(64)}`,
  requiredConfirmations: 1,
  replaceAfterMs: 60_000,
  usdcTokenAddress: `0x${'2'.repeat(40)}`,
  maxFeePerGasCapWei: 1n,
  tokenTransferGasLimit: 100_000,
  depositConfirmations: 12,
  depositPollIntervalMs: 4_000,
};

describe('which rails a process simulates', () => {
  it('a worker without EVM nodes simulates every rail', () => {
    expect(railsOfWorker({})).toEqual({ simulated: [...RAILS], real: [] });
  });

  it('an EVM network with its node configured is real; sepa and the UTXO chains stay simulated', () => {
    expect(railsOfWorker({ evmNetworks: { ethereum: ethereumNode } })).toEqual({
      simulated: ['sepa', 'bitcoin', 'dogecoin', 'litecoin', 'polygon'],
      real: ['ethereum'],
    });
    expect(railsOfWorker({ evmNetworks: { ethereum: ethereumNode, polygon: { ...ethereumNode, chainId: 137 } } }).real).toEqual([
      'ethereum',
      'polygon',
    ]);
  });

  it('a UTXO network is real once its node is configured', () => {
    const bitcoinNode = { rpcUrl: 'http://u:p@127.0.0.1:18443' } as never;
    expect(railsOfWorker({ utxoNetworks: { bitcoin: bitcoinNode } }).real).toEqual(['bitcoin']);
    expect(railDeclarationProblems(railsOfWorker({ utxoNetworks: { bitcoin: bitcoinNode } }), [...RAILS])[0]).toContain(
      'bitcoin is real here (UTXO_RPC_URL_BITCOIN is set)',
    );
  });

  it("the API, without node settings, judges only the bank: every chain network is the worker's to judge", () => {
    expect(railsKnownTo({}, 'api')).toEqual({ simulated: ['sepa'], real: [] });
    expect(railsKnownTo({ evmNetworks: { ethereum: ethereumNode } }, 'api').real).toEqual(['ethereum']);
  });
});

describe('the production check against SIMULATED_RAILS', () => {
  it('refuses a simulated rail that is not named, naming each such rail and the whole value to set', () => {
    const problems = railDeclarationProblems(railsOfWorker({ evmNetworks: { ethereum: ethereumNode } }), ['bitcoin']);
    expect(problems).toEqual([
      'refusing to start: these rails would be simulated: sepa, dogecoin, litecoin, polygon; ' +
        'set SIMULATED_RAILS=sepa,bitcoin,dogecoin,litecoin,polygon to accept that (never in production with real money)',
    ]);
  });

  it('refuses nothing when every simulated rail is named', () => {
    expect(railDeclarationProblems(railsOfWorker({}), [...RAILS])).toEqual([]);
    expect(
      railDeclarationProblems(railsOfWorker({ evmNetworks: { ethereum: ethereumNode } }), [
        'sepa',
        'bitcoin',
        'dogecoin',
        'litecoin',
        'polygon',
      ]),
    ).toEqual([]);
  });

  it('refuses a real rail named as simulated: a contradiction, with the variable that makes it real', () => {
    expect(railDeclarationProblems(railsOfWorker({ evmNetworks: { ethereum: ethereumNode } }), [...RAILS])).toEqual([
      'refusing to start: SIMULATED_RAILS names ethereum, but ethereum is real here (EVM_RPC_URL_ETHEREUM is set): ' +
        'remove ethereum from SIMULATED_RAILS, or unset EVM_RPC_URL_ETHEREUM to simulate it',
    ]);
  });

  it('lets the API start when the chain rails are left to the worker', () => {
    expect(railDeclarationProblems(railsKnownTo({}, 'api'), ['sepa', 'bitcoin', 'dogecoin', 'litecoin'])).toEqual([]);
    expect(railDeclarationProblems(railsKnownTo({}, 'api'), ['sepa'])).toEqual([]);
    expect(railDeclarationProblems(railsKnownTo({}, 'api'), [])).toHaveLength(1);
  });
});

describe('SIMULATED_RAILS', () => {
  it('is a comma list of rails, in the canonical order whatever order it was written in; unset, none', () => {
    expect(loadSettings({}, '/').acceptedSimulatedRails).toEqual([]);
    expect(loadSettings({ SIMULATED_RAILS: ' polygon, sepa ,,bitcoin' }, '/').acceptedSimulatedRails).toEqual([
      'sepa',
      'bitcoin',
      'polygon',
    ]);
  });

  it('refuses an unknown rail by name instead of ignoring it', () => {
    expect(() => loadSettings({ SIMULATED_RAILS: 'sepa,ripple,SEPA' }, '/')).toThrow(InvalidSettingsError);
    expect(() => loadSettings({ SIMULATED_RAILS: 'sepa,ripple,SEPA' }, '/')).toThrow(
      'SIMULATED_RAILS must be a comma list of sepa, bitcoin, dogecoin, ethereum, litecoin, polygon (unknown: ripple, SEPA), got "sepa,ripple,SEPA"',
    );
  });
});

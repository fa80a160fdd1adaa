import { DEFAULT_EUR_RATES, parseRateTable } from '../../core/rates';
import { loadSettings } from '../../core/settings';

describe('settings', () => {
  it('defaults to port 3000, the local data folder and no external services', () => {
    const settings = loadSettings({}, '/srv/app');
    expect(settings).toMatchObject({ port: 3000, dataDir: '/srv/app/.data', databaseUrl: undefined, temporalAddress: undefined });
    expect(settings.eurRates).toEqual(DEFAULT_EUR_RATES);
  });

  it('reads every override from the environment', () => {
    const settings = loadSettings(
      { PORT: '8080', DATABASE_URL: 'postgres://db/x', TEMPORAL_ADDRESS: 'temporal:7233', EXCHANGE_RATES_JSON: '{"btc":"90000.5"}' },
      '/srv/app',
    );
    expect(settings).toMatchObject({ port: 8080, databaseUrl: 'postgres://db/x', temporalAddress: 'temporal:7233' });
    expect(settings.eurRates.btc).toBe('90000.5');
    expect(settings.eurRates.eth).toBe(DEFAULT_EUR_RATES.eth);
  });

  it.each([
    ['{"xrp":"1"}', /unknown currency/],
    ['{"btc":"-1"}', /positive decimal/],
    ['{"eur":"2"}', /eur rate is 1/],
  ])('refuses the rate table %s', (json, message) => {
    expect(() => parseRateTable(json)).toThrow(message);
  });

  it('refuses a port that is not a number', () => {
    expect(() => loadSettings({ PORT: 'eighty' }, '/')).toThrow(/PORT must be/);
  });
});

describe('rate table', () => {
  it('keeps every digit of a rate given as a JSON number', () => {
    expect(parseRateTable('{"btc": 91234.123456789012345678}').btc).toBe('91234.123456789012345678');
  });
});

import { quoteExchange } from '../../activities/exchange.activities';

describe('exchange quote', () => {
  it('is exact when the true result is: 1000 eur at 3000 with a 1 % fee buys 0.33 eth, not 0.329999…', () => {
    expect(quoteExchange({ amount: '1000', currencyTo: 'eth', rateFrom: '1', rateTo: '3000', feePercentage: '1' })).toEqual({
      amountTo: '0.33',
      feeAmount: '0.003333333333333333',
      grossAmountTo: '0.333333333333333333',
    });
  });

  it('rounds the credited amount down to the target scale and gives the house the rest', () => {
    // 100 / 85000 × 0.99 = 0.0011647058823…
    expect(quoteExchange({ amount: '100', currencyTo: 'btc', rateFrom: '1', rateTo: '85000', feePercentage: '1' })).toEqual({
      amountTo: '0.0011647',
      feeAmount: '0.00001177',
      grossAmountTo: '0.00117647',
    });
  });

  it('charges nothing at a zero fee', () => {
    expect(quoteExchange({ amount: '2', currencyTo: 'eur', rateFrom: '85000', rateTo: '1', feePercentage: '0' })).toEqual({
      amountTo: '170000',
      feeAmount: '0',
      grossAmountTo: '170000',
    });
  });
});

import { workerListeners } from '../../main/process-support';

describe("the worker's listeners", () => {
  const ports = { sdkMetricsPort: 9464, httpPort: 9465, host: '0.0.0.0' };

  it('binds both on the host it is given: HOST from npm start, WORKER_HOST from npm run worker', () => {
    expect(workerListeners(ports, '127.0.0.1')).toEqual({
      sdkMetricsBindAddress: '127.0.0.1:9464',
      http: { port: 9465, host: '127.0.0.1' },
    });
    expect(workerListeners(ports, ports.host)).toEqual({ sdkMetricsBindAddress: '0.0.0.0:9464', http: { port: 9465, host: '0.0.0.0' } });
  });

  it('writes an IPv6 interface as the SDK parses a socket address', () => {
    expect(workerListeners(ports, '::1').sdkMetricsBindAddress).toBe('[::1]:9464');
  });

  it('opens neither listener on port 0', () => {
    expect(workerListeners({ ...ports, sdkMetricsPort: 0, httpPort: 0 }, '127.0.0.1')).toEqual({});
  });
});

import { isOwnHost, ownHosts } from '../../../bin/local/own-host';

describe('the hosts the local server answers for', () => {
  test('are the loopback names with the port, and the bound host when it is another', () => {
    expect(ownHosts(3000, '127.0.0.1')).toEqual(['localhost:3000', '127.0.0.1:3000', '[::1]:3000']);
    expect(ownHosts(3000, '::1')).toEqual(['localhost:3000', '127.0.0.1:3000', '[::1]:3000']);
    expect(ownHosts(3000, 'devbox.lan')).toEqual(['localhost:3000', '127.0.0.1:3000', '[::1]:3000', 'devbox.lan:3000']);
  });

  test('take a Host without its port only on port 80, and never a missing Host', () => {
    expect(isOwnHost('localhost', ownHosts(80, '127.0.0.1'))).toBe(true);
    expect(isOwnHost('localhost', ownHosts(3000, '127.0.0.1'))).toBe(false);
    expect(isOwnHost(undefined, ownHosts(3000, '127.0.0.1'))).toBe(false);
  });
});

import { readConfig } from '../../../lib/config';
import { cdkJsonContext } from './synth';

const nodeWith = (context: Record<string, unknown>) => ({ tryGetContext: (key: string): unknown => context[key] });

describe('reading the CDK context', () => {
  it('reads the cdk.json defaults: a dev stage, one small data node, CORS for the local web app, the Cognito pool', () => {
    const config = readConfig(nodeWith(cdkJsonContext()));
    expect(config).toMatchObject({
      stage: 'dev',
      openSearch: { dataNodes: 1, instanceType: 't3.small.search', masterNodes: 0, volumeGiB: 10, indexPrefix: '' },
      api: {
        throttleRateLimit: 50,
        throttleBurstLimit: 100,
        corsOrigins: ['http://localhost:3000'],
        organizationClaim: 'custom:organizationId',
      },
      split: { maxConcurrency: 10, logExecutionData: false },
      reportTermsCap: 1000,
      logRetentionDays: 30,
    });
    expect(config.api.jwt).toBeUndefined();
    expect(config.account).toBeUndefined();
    expect(config.alarmEmail).toBeUndefined();
    expect(config.problemTypeBase).toBeUndefined();
  });

  it('parses values given on the command line, which arrive as strings', () => {
    const config = readConfig(
      nodeWith({
        stage: 'prod',
        openSearchDataNodes: '3',
        corsOrigins: 'https://a.example, https://b.example',
        splitLogExecutionData: 'true',
        jwtIssuer: 'https://id.example/',
        jwtAudience: 'x',
      }),
    );
    expect(config.stage).toBe('prod');
    expect(config.openSearch.dataNodes).toBe(3);
    expect(config.api.corsOrigins).toEqual(['https://a.example', 'https://b.example']);
    expect(config.split.logExecutionData).toBe(true);
    expect(config.api.jwt).toEqual({ issuer: 'https://id.example/', audience: ['x'] });
    expect(readConfig(nodeWith({ problemTypeBase: 'https://docs.example.org/lrs/problems#' })).problemTypeBase).toBe(
      'https://docs.example.org/lrs/problems#',
    );
  });

  it('takes the production profile: 3 data nodes, 3 dedicated masters, 100 GiB each; a key of its own still overrides', () => {
    expect(readConfig(nodeWith({ openSearchProfile: 'production' })).openSearch).toMatchObject({
      profile: 'production',
      dataNodes: 3,
      instanceType: 'm7g.large.search',
      masterNodes: 3,
      masterInstanceType: 'm7g.large.search',
      volumeGiB: 100,
    });
    expect(
      readConfig(nodeWith({ openSearchProfile: 'production', openSearchDataNodes: '6' })).openSearch,
    ).toMatchObject({ dataNodes: 6, masterNodes: 3 });
    expect(readConfig(nodeWith({})).openSearch).toMatchObject({ profile: 'small', dataNodes: 1, masterNodes: 0 });
  });

  it.each([
    [{ openSearchProfile: 'huge' }, /Context "openSearchProfile" must be one of small, production, got "huge"/],
    [{ stage: 'Prod!' }, /stage/],
    [{ openSearchDataNodes: '0' }, /openSearchDataNodes/],
    [{ openSearchVolumeGiB: 'ten' }, /openSearchVolumeGiB/],
    [{ splitLogExecutionData: 'yes' }, /splitLogExecutionData/],
    [{ jwtIssuer: 'https://id.example/' }, /jwtAudience/],
    [{ problemTypeBase: 'https://docs.example.org/problems' }, /Context "problemTypeBase" must end in "#"/],
  ])('refuses %j', (context, message) => {
    expect(() => readConfig(nodeWith(context))).toThrow(message);
  });
});

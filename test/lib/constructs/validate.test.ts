import { accountsSchema, alertEmailsSchema, reservedConcurrencySchema } from '../../../contracts/config';
import { requireSettings, requireValid } from '../../../lib/constructs/validate';
import { settingsFor } from './support';

describe('requireValid', () => {
  it('accepts what the schema accepts', () => {
    expect(() => requireValid('Test', 'alertEmails', alertEmailsSchema, ['oncall@example.com'])).not.toThrow();
    expect(() => requireValid('Test', 'reservedConcurrency', reservedConcurrencySchema, 0)).not.toThrow();
  });

  it('names the construct and the prop, and lists every problem with its path, the value and what is allowed', () => {
    expect(() =>
      requireValid('FindingsTopic', 'alertEmails', alertEmailsSchema, ['oncall@example.com', 'oncall', 'a@b']),
    ).toThrow(
      'FindingsTopic: invalid alertEmails:\n' +
        '  alertEmails[1] = "oncall": expected an email address\n' +
        '  alertEmails[2] = "a@b": expected an email address',
    );
  });

  it.each([
    [
      'reservedConcurrency',
      101,
      reservedConcurrencySchema,
      ' = 101: expected at most 100; leave the rest of the account unreserved',
    ],
    ['reservedConcurrency', 2.5, reservedConcurrencySchema, ' = 2.5: Invalid input: expected int, received number'],
    ['accounts', [], accountsSchema, ' = []: expected at least one account'],
    ['accounts', ['1234'], accountsSchema, '[0] = "1234": expected an AWS account id of 12 digits'],
  ])('states the rule of the configuration schema: %s = %j', (prop, value, schema, message) => {
    expect(() => requireValid('Test', prop, schema, value)).toThrow(`Test: invalid ${prop}:\n  ${prop}${message}`);
  });
});

describe('requireSettings', () => {
  const settings = settingsFor({ clusters: [{ name: 'prod' }] });

  it('accepts the settings the configuration schema gives', () => {
    expect(() => requireSettings('Test', settings)).not.toThrow();
  });

  it('checks them with the schema the functions read them with, every problem at once', () => {
    const broken = {
      ...settings,
      clusters: [{ ...settings.clusters[0]!, name: 'no spaces' }],
      windows: { ...settings.windows, renotifyMinutes: 1 },
    };
    expect(() => requireSettings('HeadroomCheck', broken)).toThrow(
      /^HeadroomCheck: invalid settings:\n  settings\.clusters\[0\]\.name = "no spaces": expected an EKS cluster name.*\n  settings\.windows\.renotifyMinutes = 1: /,
    );
  });

  it('refuses a key the functions would not read, naming the keys allowed', () => {
    expect(() => requireSettings('Test', { ...settings, extra: 1 } as typeof settings)).toThrow(
      'settings: unknown key "extra"; expected one of clusters, windows, notifications, karpenterSources, headroom, remediation',
    );
  });
});

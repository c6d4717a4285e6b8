import { DEFAULT_TRACKING, resolveTracking, trackingSettingsOf } from '../../lib/trackingSettings';
import { isMachineAgent } from '../../services/machineAgents';

describe('tracking settings', () => {
  it('default to marketing on, transactional off; HEADLESS follows TRANSACTIONAL', () => {
    const s = trackingSettingsOf(null);
    expect(s).toEqual(DEFAULT_TRACKING);
    expect(resolveTracking(s, 'MARKETING')).toEqual({ opens: true, clicks: true });
    expect(resolveTracking(s, 'TRANSACTIONAL')).toEqual({ opens: false, clicks: false });
    const custom = trackingSettingsOf({ TRANSACTIONAL: { clicks: true } });
    expect(resolveTracking(custom, 'HEADLESS')).toEqual({ opens: false, clicks: true });
  });

  it('take an override key by key', () => {
    expect(resolveTracking(DEFAULT_TRACKING, 'MARKETING', { opens: false })).toEqual({ opens: false, clicks: true });
    expect(resolveTracking(DEFAULT_TRACKING, 'TRANSACTIONAL', { clicks: true })).toEqual({ opens: false, clicks: true });
  });
});

describe('machine agents', () => {
  it('knows scanners and HTTP libraries, not mail clients or image proxies', () => {
    for (const ua of [
      '',
      'Mozilla/5.0 (compatible; Barracuda Sentinel)',
      'python-requests/2.31',
      'Slackbot-LinkExpanding 1.0',
      'curl/8.0',
      'Microsoft Office SafeLinks',
    ])
      expect(isMachineAgent(ua)).toBe(true);
    for (const ua of [
      'Mozilla/5.0 (Windows NT 10.0; Win64; x64) AppleWebKit/537.36 Chrome/120.0 Safari/537.36',
      'Mozilla/5.0 (via ggpht.com GoogleImageProxy)',
      'Microsoft Outlook 16.0',
    ])
      expect(isMachineAgent(ua)).toBe(false);
  });
});

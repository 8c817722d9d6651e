/**
 * An owner's system on `@tilecast/client`: it publishes a switchboard (lights as toggles,
 * a doorbell as a button), listens for presses, drives its (simulated) lights, and
 * confirms each press by publishing the whole switchboard in its true state.
 */
import { isWidgetAction, type SwitchboardAction, type TilecastClient, type WidgetActionEvent, type WidgetContent } from '@tilecast/client';

export interface Light {
  id: string;
  label: string;
  on: boolean;
  /** A light that does not answer: switching it fails and it stays as it was. */
  reachable: boolean;
}

export interface Home {
  lights: Light[];
  doorbellRings: number;
}

export const DOORBELL = 'doorbell';

export function demoHome(): Home {
  return {
    lights: [
      { id: 'hall', label: 'Hall', on: false, reachable: true },
      { id: 'kitchen', label: 'Kitchen', on: true, reachable: true },
      { id: 'porch', label: 'Porch', on: false, reachable: false },
    ],
    doorbellRings: 0,
  };
}

/** The whole switchboard as the home is now: every action, every toggle in its real state. */
export function switchboard(home: Home): WidgetContent<'switchboard'> {
  const toggles: SwitchboardAction[] = home.lights.map((light) => ({ id: light.id, label: light.label, icon: 'lightbulb', kind: 'toggle', on: light.on }));
  const bell: SwitchboardAction = { id: DOORBELL, label: 'Doorbell', icon: 'bell', kind: 'button' };
  return { template: 'switchboard', title: 'Home', actions: [...toggles, bell] };
}

/** Acts on one press. Returns what happened, for the log; the switchboard is published either way. */
export function applyPress(home: Home, event: WidgetActionEvent): string {
  const { action, kind, value } = event.data;
  if (action === DOORBELL && kind === 'button') {
    home.doorbellRings += 1;
    return 'doorbell rang';
  }
  const light = home.lights.find((candidate) => candidate.id === action);
  if (light === undefined || kind !== 'toggle' || value === undefined) return `ignored press on ${action}`;
  if (!light.reachable) return `${light.label} did not answer; it stays ${light.on ? 'on' : 'off'}`;
  light.on = value;
  return `${light.label} switched ${value ? 'on' : 'off'}`;
}

export interface SmartHomeOptions {
  client: TilecastClient;
  /** A widget created with the `switchboard` template. */
  slug: string;
  home?: Home;
  signal?: AbortSignal;
  log?: (line: string) => void;
}

/** Publishes, then confirms every press until `signal` aborts. */
export async function runSmartHome({ client, slug, home = demoHome(), signal, log = console.log }: SmartHomeOptions): Promise<void> {
  const widget = client.widget<'switchboard'>(slug);
  await widget.update({ content: switchboard(home) });
  log(`published ${slug}; waiting for presses`);
  for await (const event of client.events({ types: ['widget.action.v1'], subject: `widget/${slug}`, signal })) {
    if (!isWidgetAction(event)) continue;
    log(applyPress(home, event));
    // The confirmation: the whole content (an update replaces it), in the true state,
    // also when the light failed, so the phone shows the truth instead of "No response".
    await widget.update({ content: switchboard(home) }).catch((error: unknown) => log(`confirming failed: ${String(error)}`));
  }
}

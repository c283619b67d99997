/**
 * Test-only fault points. With SHOP_FAULT=<point>, reaching that point prints
 * `SHOP_FAULT reached: <point>` and hangs for good, so a test can SIGKILL the server at
 * exactly that moment. Without SHOP_FAULT every point passes straight through.
 */
import env from '#start/env'

/** After the gateway moved the money, before the charge step's result is recorded (crash point P5). */
export type FaultPoint = 'hang-after-charge'

export default class FaultInjection {
  async reach(point: FaultPoint): Promise<void> {
    if (env.get('SHOP_FAULT') !== point) return
    console.log(`SHOP_FAULT reached: ${point}`)
    await new Promise<never>(() => {})
  }
}

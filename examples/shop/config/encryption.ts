import { defineConfig, drivers } from '@adonisjs/core/encryption'
import { appKey } from '#config/app'

// Required by AdonisJS 7 even when nothing is encrypted.
export default defineConfig({
  default: 'gcm',
  list: { gcm: drivers.aes256gcm({ keys: [appKey.release()], id: 'gcm' }) },
})

import router from '@adonisjs/core/services/router'

const HomeController = () => import('#controllers/home_controller')
const OrdersController = () => import('#controllers/orders_controller')
const ApprovalsController = () => import('#controllers/approvals_controller')
const DeliveriesController = () => import('#controllers/deliveries_controller')

router.get('/', [HomeController, 'index'])
router.post('/orders', [OrdersController, 'store'])
router.get('/orders/:id', [OrdersController, 'show'])
router.get('/orders/:id/timeline', [OrdersController, 'timeline'])
router.post('/orders/:id/approve', [ApprovalsController, 'approve'])
router.post('/orders/:id/reject', [ApprovalsController, 'reject'])
router.post('/orders/:id/delivery', [DeliveriesController, 'store'])

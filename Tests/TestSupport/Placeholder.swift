import Messaging
